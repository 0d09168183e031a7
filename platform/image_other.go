//go:build !linux

package platform

// ReleaseImage does nothing here: the whole-piece mapping it works around
// (see image_linux.go) is Linux's.
func ReleaseImage() (ImageRelease, error) { return ImageRelease{}, nil }
