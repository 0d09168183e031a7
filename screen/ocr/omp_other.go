//go:build !linux && !darwin && !no_ocr

package ocr

// limitOpenMP: Windows builds of Tesseract are used as they come.
func limitOpenMP() (restore func()) { return func() {} }
