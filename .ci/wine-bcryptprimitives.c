/*
 * bcryptprimitives.dll for the wine pipeline test (.ci/package-windows-test)
 * only; it is never shipped. Go's Windows runtime takes its random bytes
 * from ProcessPrng in bcryptprimitives.dll, which every Windows 10 and later
 * has but Debian 12's wine 8.0 lacks (the runtime stops with "fatal error:
 * bcryptprimitives.dll not found"). This one answers from RtlGenRandom.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
