package desktop

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFyneID: each data folder gets a Fyne app id of its own, and with it
// its own preferences file (Fyne keeps it in <config>/fyne/<id>/); the
// usual one keeps AppID, which the desktop entry goes by.
func TestFyneID(t *testing.T) {
	def := filepath.Join(t.TempDir(), "spirit")
	other := filepath.Join(t.TempDir(), "case-2026")
	for _, tc := range []struct {
		name    string
		dataDir string
		want    string // "" for any id but AppID
	}{
		{name: "the usual data folder keeps the app id", dataDir: def, want: AppID},
		{name: "the usual data folder, written differently", dataDir: def + "/", want: AppID},
		{name: "another data folder", dataDir: other},
		{name: "no usual data folder known", dataDir: def + "-x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fyneID(tc.dataDir, def)
			if tc.want != "" && got != tc.want {
				t.Errorf("fyneID(%q) = %q, want %q", tc.dataDir, got, tc.want)
			}
			if tc.want == "" && (got == AppID || !strings.HasPrefix(got, AppID+".")) {
				t.Errorf("fyneID(%q) = %q, want %s with a suffix of its own", tc.dataDir, got, AppID)
			}
		})
	}
	if a, b := fyneID(other, def), fyneID(def+"-x", def); a == b {
		t.Errorf("two data folders share the id %q", a)
	}
	if a, b := fyneID(other, def), fyneID(other, ""); a != b {
		t.Errorf("one data folder got two ids: %q and %q", a, b)
	}
}
