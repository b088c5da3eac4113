/* codec.c: stub, being written */
#include "core.h"
