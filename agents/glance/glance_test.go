package glance

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// publicCases is the shared cases folder, relative to this package.
const publicCases = "../../../shared/cases"

func TestPublicCases(t *testing.T) {
	if _, err := os.Stat(filepath.Join(publicCases, "glance")); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no cases at %s", publicCases)
	}
	runEval(t, publicCases)
}

func TestOwnCases(t *testing.T) {
	runEval(t, "testdata")
}

func runEval(t *testing.T, root string) {
	t.Helper()
	var out bytes.Buffer
	passed, failed, err := EvalDir(t.Context(), root, &out, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out.String())
	if failed > 0 || passed == 0 {
		t.Errorf("%d passed, %d failed:\n%s", passed, failed, out.String())
	}
}
