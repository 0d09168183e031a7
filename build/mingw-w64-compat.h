/* Forced into every C file of the Windows whisper.cpp build (see
 * build/windows.sh). Debian bookworm's mingw-w64 10 headers lack the thread
 * power-throttling declarations of the Windows 11 SDK, which ggml-cpu uses
 * to keep its threads off parked cores; they are declared here as the SDK
 * declares them, and only where the headers do not. */
#ifdef _WIN32
#include <windows.h>
#ifndef THREAD_POWER_THROTTLING_CURRENT_VERSION
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
#define THREAD_POWER_THROTTLING_VALID_FLAGS THREAD_POWER_THROTTLING_EXECUTION_SPEED
typedef struct _THREAD_POWER_THROTTLING_STATE {
  ULONG Version;
  ULONG ControlMask;
  ULONG StateMask;
} THREAD_POWER_THROTTLING_STATE;
#endif
#endif
