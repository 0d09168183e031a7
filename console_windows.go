package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// attachConsole lets spirit.exe, a GUI program (-H windowsgui: started
// from the Start menu or at login it opens no console window), print to
// the console it was typed in. Windows gives a GUI program no console and,
// unless redirected, no standard streams; those are opened on the parent's
// console once attached. Started from Explorer there is no parent console,
// and nothing changes. cmd.exe does not wait for a GUI program: its prompt
// may come back before Spirit's output (build/README.md says how to wait).
func attachConsole() {
	std := [3]uint32{windows.STD_INPUT_HANDLE, windows.STD_OUTPUT_HANDLE, windows.STD_ERROR_HANDLE}
	var types [3]uint32
	for i, s := range std {
		if h, err := windows.GetStdHandle(s); err == nil && h != 0 && h != windows.InvalidHandle {
			types[i], _ = windows.GetFileType(h)
		}
	}
	reopen, any := streamsToReopen(types)
	if !any {
		return
	}
	kernel32 := windows.NewLazySystemDLL("kernel32.dll")
	const attachParentProcess = ^uintptr(0) // (DWORD)-1
	// ERROR_ACCESS_DENIED: a console is attached already (a parent may
	// pass its own on), and its streams are there to open.
	if ok, _, err := kernel32.NewProc("AttachConsole").Call(attachParentProcess); ok == 0 &&
		err != windows.ERROR_ACCESS_DENIED {
		return // no console to print to
	}
	for i, s := range std {
		if !reopen[i] {
			continue
		}
		name, access := "CONOUT$", uint32(windows.GENERIC_READ|windows.GENERIC_WRITE)
		if s == windows.STD_INPUT_HANDLE {
			name = "CONIN$"
		}
		p, _ := windows.UTF16PtrFromString(name)
		h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil,
			windows.OPEN_EXISTING, 0, 0)
		if err != nil {
			continue
		}
		// Children (the microphone helper) inherit the standard handles.
		_ = windows.SetStdHandle(s, h)
		f := os.NewFile(uintptr(h), name)
		switch s {
		case windows.STD_INPUT_HANDLE:
			os.Stdin = f
		case windows.STD_OUTPUT_HANDLE:
			os.Stdout = f
		default:
			os.Stderr = f
		}
	}
}
