package app

import (
	"testing"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/screen/ocr"
)

// TestScreenTextHealth: /health says whether this build reads screen text,
// in the words the doctor uses.
func TestScreenTextHealth(t *testing.T) {
	for _, tc := range []struct {
		name  string
		avail error
		want  api.Subsystem
	}{
		{"built with Tesseract", nil,
			api.Subsystem{State: "available", Detail: "read with Tesseract when a glance needs it"}},
		{"built without OCR", ocr.ErrUnavailable,
			api.Subsystem{State: "unavailable", Detail: "screen text: not available on this system"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := screenTextHealth(tc.avail); got != tc.want {
				t.Errorf("screenTextHealth(%v) = %+v, want %+v", tc.avail, got, tc.want)
			}
		})
	}
}

// TestOpenOCRFollowsTheBuild: the glance gets an OCR opener exactly when
// this build has OCR, so a build without it never fails at each switch.
func TestOpenOCRFollowsTheBuild(t *testing.T) {
	if got, want := openOCR() != nil, ocr.Available() == nil; got != want {
		t.Errorf("openOCR() given: %v, want %v (ocr.Available() = %v)", got, want, ocr.Available())
	}
}
