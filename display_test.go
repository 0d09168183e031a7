package main

import "testing"

func TestHasDisplay(t *testing.T) {
	tests := []struct {
		name string
		goos string
		env  map[string]string
		want bool
	}{
		{"linux with X11", "linux", map[string]string{"DISPLAY": ":0"}, true},
		{"linux with Wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"linux on a server (ssh, CI)", "linux", nil, false},
		{"linux with an empty DISPLAY", "linux", map[string]string{"DISPLAY": ""}, false},
		{"freebsd without a display", "freebsd", map[string]string{"XAUTHORITY": "/x"}, false},
		{"windows", "windows", nil, true},
		{"macOS", "darwin", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := hasDisplay(tt.goos, func(k string) string { return tt.env[k] })
			if got != tt.want {
				t.Errorf("hasDisplay(%s, %v) = %v, want %v", tt.goos, tt.env, got, tt.want)
			}
		})
	}
}
