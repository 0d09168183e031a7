/* bcryptprimitives.dll for Wine 8, which lacks it. Go 1.24 and later load
 * ProcessPrng from it at start (every Windows since 10 has it) and stop
 * without it. wine_test.go builds this into a test's own Wine prefix only;
 * it is never shipped: on Windows the system's DLL is used. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
      return FALSE;
    }
    data += n;
    len -= n;
  }
  return TRUE;
}
