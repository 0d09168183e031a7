package platform

// ImageRelease is what ReleaseImage did: the process's resident memory
// (VmRSS) before and after, in KB; zero where it did nothing.
type ImageRelease struct{ Before, After int }
