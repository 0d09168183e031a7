/*
 * winprobe: what wine_test.go asks Windows about Spirit's windows from
 * outside Spirit, through the same user32 calls any Windows program has.
 * Test-only: built by the test into its Wine prefix, never shipped.
 *
 *   winprobe window TITLE [AFFINITY]  make a top-level window titled TITLE
 *                                     (display affinity AFFINITY, hex) and
 *                                     run until it is closed
 *   winprobe look TITLE               print the window's ex-style, frame,
 *                                     visibility, display affinity, and
 *                                     the work area
 *   winprobe foreground               print the foreground window's title
 *   winprobe move TITLE X Y           move the window, not activating it
 *   winprobe settingchange            broadcast WM_SETTINGCHANGE for
 *                                     SPI_SETWORKAREA, as the taskbar does
 *   winprobe hotkey MODS VK           try RegisterHotKey, print "free" or
 *                                     "taken"
 *   winprobe spawn COMMAND LINE       run it as a console's GUI child is run
 *                                     on Windows (no standard handles given)
 *                                     and exit with its exit code
 *
 * Output is one line of key=value pairs; failure exits 1 with the reason.
 */
#ifndef UNICODE
#define UNICODE
#endif
#ifndef _UNICODE
#define _UNICODE
#endif
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static int fail(const char *what) {
  fprintf(stderr, "winprobe: %s failed: error %lu\n", what, GetLastError());
  return 1;
}

static HWND find(const wchar_t *title) {
  HWND w = FindWindowW(NULL, title);
  if (!w) fwprintf(stderr, L"winprobe: no window titled \"%ls\"\n", title);
  return w;
}

static LRESULT CALLBACK proc(HWND w, UINT msg, WPARAM wp, LPARAM lp) {
  if (msg == WM_DESTROY) {
    PostQuitMessage(0);
    return 0;
  }
  return DefWindowProcW(w, msg, wp, lp);
}

static int window(const wchar_t *title, DWORD affinity) {
  WNDCLASSW wc = {0};
  wc.lpfnWndProc = proc;
  wc.hInstance = GetModuleHandleW(NULL);
  wc.lpszClassName = L"WinprobeWindow";
  wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
  if (!RegisterClassW(&wc)) return fail("RegisterClass");
  HWND w = CreateWindowExW(0, wc.lpszClassName, title, WS_OVERLAPPEDWINDOW, 100, 100, 500, 300,
                           NULL, NULL, wc.hInstance, NULL);
  if (!w) return fail("CreateWindowEx");
  /* Wine 8 refuses any affinity (error 8): the window still opens, and
     `look` tells what the system kept. */
  if (affinity && !SetWindowDisplayAffinity(w, affinity))
    fprintf(stderr, "winprobe: SetWindowDisplayAffinity(0x%lx): error %lu\n", affinity, GetLastError());
  ShowWindow(w, SW_SHOW);
  MSG m;
  while (GetMessageW(&m, NULL, 0, 0) > 0) {
    TranslateMessage(&m);
    DispatchMessageW(&m);
  }
  return 0;
}

static int look(const wchar_t *title) {
  HWND w = find(title);
  if (!w) return 1;
  RECT r, wa;
  DWORD aff = 0;
  if (!GetWindowRect(w, &r)) return fail("GetWindowRect");
  if (!SystemParametersInfoW(SPI_GETWORKAREA, 0, &wa, 0)) return fail("SystemParametersInfo");
  if (!GetWindowDisplayAffinity(w, &aff)) return fail("GetWindowDisplayAffinity");
  printf("exstyle=0x%08lx rect=%ld,%ld,%ld,%ld visible=%d affinity=0x%lx workarea=%ld,%ld,%ld,%ld\n",
         (unsigned long)GetWindowLongPtrW(w, GWL_EXSTYLE), r.left, r.top, r.right, r.bottom,
         IsWindowVisible(w) ? 1 : 0, aff, wa.left, wa.top, wa.right, wa.bottom);
  return 0;
}

static int foreground(void) {
  wchar_t t[512] = L"";
  HWND w = GetForegroundWindow();
  if (w) GetWindowTextW(w, t, 512);
  /* UTF-8, whatever the console's code page. */
  char u[2048];
  WideCharToMultiByte(CP_UTF8, 0, t, -1, u, sizeof u, NULL, NULL);
  printf("title=%s\n", u);
  return 0;
}

int wmain(int argc, wchar_t **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc >= 3 && !wcscmp(argv[1], L"window"))
    return window(argv[2], argc >= 4 ? wcstoul(argv[3], NULL, 16) : 0);
  if (argc == 3 && !wcscmp(argv[1], L"look")) return look(argv[2]);
  if (argc == 2 && !wcscmp(argv[1], L"foreground")) return foreground();
  if (argc == 5 && !wcscmp(argv[1], L"move")) {
    HWND w = find(argv[2]);
    if (!w) return 1;
    if (!SetWindowPos(w, NULL, _wtoi(argv[3]), _wtoi(argv[4]), 0, 0,
                      SWP_NOSIZE | SWP_NOZORDER | SWP_NOACTIVATE))
      return fail("SetWindowPos");
    printf("moved\n");
    return 0;
  }
  if (argc == 2 && !wcscmp(argv[1], L"settingchange")) {
    DWORD_PTR res;
    if (!SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, SPI_SETWORKAREA, (LPARAM)L"",
                             SMTO_ABORTIFHUNG, 5000, &res))
      return fail("SendMessageTimeout");
    printf("sent\n");
    return 0;
  }
  if (argc >= 3 && !wcscmp(argv[1], L"spawn")) {
    /* The rest of this program's own command line, as typed. */
    wchar_t *line = wcsstr(GetCommandLineW(), L"spawn");
    line += 5;
    while (*line == L' ') line++;
    STARTUPINFOW si = {0};
    PROCESS_INFORMATION pi;
    DWORD code = 1;
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES; /* all three NULL */
    if (!CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
      return fail("CreateProcess");
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &code);
    return (int)code;
  }
  if (argc == 4 && !wcscmp(argv[1], L"hotkey")) {
    if (RegisterHotKey(NULL, 1, wcstoul(argv[2], NULL, 16), wcstoul(argv[3], NULL, 16))) {
      UnregisterHotKey(NULL, 1);
      printf("hotkey=free\n");
    } else {
      printf("hotkey=taken error=%lu\n", GetLastError());
    }
    return 0;
  }
  fprintf(stderr, "usage: winprobe window|look|foreground|move|settingchange|hotkey ...\n");
  return 2;
}
