//go:build !linux && !darwin

package ocr

// limitOpenMP: Windows builds of Tesseract are used as they come.
func limitOpenMP() (restore func()) { return func() {} }
