package xsocket

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestEnsure(t *testing.T) {
	// A restrictive umask, as some CI shells have, must not leave the
	// folder unwritable for other users' X servers.
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })

	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		wantErr string
		want    fs.FileMode
	}{
		{name: "missing is created sticky and world-writable", want: fs.ModeDir | fs.ModeSticky | 0o777},
		{
			name:    "existing folder is left as it is",
			prepare: func(t *testing.T, dir string) { mustMkdir(t, dir, 0o755) },
			want:    fs.ModeDir | 0o755,
		},
		{
			name: "a file in its place is an error",
			prepare: func(t *testing.T, dir string) {
				if err := os.WriteFile(dir, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "is not a folder",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".X11-unix")
			if tt.prepare != nil {
				tt.prepare(t, dir)
			}
			err := ensure(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ensure() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ensure() error = %v", err)
			}
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode() & (fs.ModeDir | fs.ModeSticky | fs.ModePerm); got != tt.want {
				t.Errorf("mode = %v, want %v", got, tt.want)
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}
