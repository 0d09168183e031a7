package calendar

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// publicCases is the shared case folder beside the repository.
const publicCases = "../../../shared/cases"

func evalRoot(t *testing.T, root string) {
	t.Helper()
	if _, err := os.Stat(root + "/calendar"); err != nil {
		t.Skipf("no cases at %s: %v", root, err)
	}
	var out bytes.Buffer
	passed, failed, err := EvalDir(context.Background(), root, &out, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d passed, %d failed\n%s", root, passed, failed, out.String())
	if failed > 0 || passed == 0 {
		t.Errorf("%s: %d passed, %d failed:\n%s", root, passed, failed, out.String())
	}
}

func TestEvalPublicCases(t *testing.T) { evalRoot(t, publicCases) }

func TestEvalOwnCases(t *testing.T) { evalRoot(t, "testdata") }
