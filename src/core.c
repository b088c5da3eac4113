/* core.c: stub, being written */
#include "core.h"
void (*bf_interrupt_hook) (void) = NULL;
const char *bf_status_message(bf_status status) { return "stub"; }
bf_status bf_check_header(const BloomHeader *header) { return BF_OK; }
bf_status bf_check_bits(const BloomHeader *header, const uint8_t *bits, size_t nbytes) { return BF_OK; }
