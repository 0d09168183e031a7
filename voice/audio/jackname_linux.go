package audio

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// PortAudio keeps the pointer it is given, so the name lives in static
// storage. The function is looked up at run time because PortAudio builds
// without JACK support lack it.
static char spirit_jack_client_name[64];

static int spirit_set_jack_client_name(const char *name) {
	int (*set)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "PaJack_SetClientName");
	if (set == NULL) {
		return 1;
	}
	strncpy(spirit_jack_client_name, name, sizeof spirit_jack_client_name - 1);
	return set(spirit_jack_client_name);
}
*/
import "C"

import "unsafe"

// setJackClientName names the JACK client the next PortAudio initialisation
// creates, so the stream shows up as "Spirit" rather than "PortAudio" in JACK
// and PipeWire graphs. Callers hold paLock. It is a no-op without JACK.
func setJackClientName(name string) {
	if name == "" {
		return
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	C.spirit_set_jack_client_name(cs)
}
