package app

import (
	"strings"
	"testing"

	"github.com/spirit-app/spirit/platform"
)

func TestAutostartText(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    platform.Autostart
		want []string // all in the text
		not  string   // not in the text; "" for no check
	}{
		{"no entry", platform.Autostart{}, []string{"does not start"}, "("},
		{"on", platform.Autostart{On: true, Command: []string{"/usr/bin/spirit", "--data-dir", "/srv/d"}, Where: "/h/.config/autostart/spirit.desktop"},
			[]string{"starts when you log in", "/usr/bin/spirit --data-dir /srv/d", "/h/.config/autostart/spirit.desktop"}, "not"},
		{"off by the desktop", platform.Autostart{Command: []string{"/usr/bin/spirit"}, Where: "/h/x.desktop", Note: "Turned off in your desktop's startup settings."},
			[]string{"does not start", "Turned off in your desktop's startup settings.", "/h/x.desktop"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AutostartText(tc.a)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("AutostartText = %q, want %q in it", got, w)
				}
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("AutostartText = %q, want no %q", got, tc.not)
			}
		})
	}
}
