/*
 * harness.c: the unit tests' main, their checks and counters, and the
 * helpers and test data they share (harness.h).
 *
 * Inputs to the decoders are copied into buffers of exactly their length
 * (exact_copy), so that under the sanitizers a read one byte past the end is
 * an error.
 *
 * The golden hash values were computed independently of this code: h1/h2
 * with Debian's xxhsum -H2 (XXH128, printed big-endian, high 64 bits first),
 * the probe positions from h1/h2 in python3 with big integers, the text
 * forms with python3's base64 module.
 */
#include "harness.h"

static int	passed;
static int	failed;

/* ---- registration ---- */

static unit_test *tests;
static unit_test **tests_tail = &tests;

/* Called from the constructors, in whatever order the linker gives. */
void
unit_register(unit_test *test)
{
	*tests_tail = test;
	tests_tail = &test->next;
}

static int
test_order(const void *a, const void *b)
{
	const unit_test *x = *(const unit_test *const *) a;
	const unit_test *y = *(const unit_test *const *) b;
	int			by_file = strcmp(x->file, y->file);

	if (by_file != 0)
		return by_file;
	return (x->line > y->line) - (x->line < y->line);
}

/* file's base name without ".c": test/unit/test_probe.c is "test_probe" */
static bool
file_is(const char *file, const char *name)
{
	const char *base = strrchr(file, '/');
	size_t		len = strlen(name);

	base = base != NULL ? base + 1 : file;
	return strncmp(base, name, len) == 0 && strcmp(base + len, ".c") == 0;
}

/*
 * unit [NAME...]: every test, or those named (a test, as in UNIT_TEST(name),
 * or a file, as in test_probe), in the order of their files' names and then
 * of their lines; each starts from the same pseudo-random state, so that
 * none depends on which ran before it.
 */
int
main(int argc, char **argv)
{
	size_t		ntests = 0,
				nrun = 0;
	unit_test **sorted;

	for (unit_test *t = tests; t != NULL; t = t->next)
		ntests++;
	sorted = xmalloc(ntests * sizeof(*sorted));
	ntests = 0;
	for (unit_test *t = tests; t != NULL; t = t->next)
		sorted[ntests++] = t;
	qsort(sorted, ntests, sizeof(*sorted), test_order);

	for (size_t i = 0; i < ntests; i++)
	{
		bool		wanted = argc < 2;

		for (int a = 1; a < argc && !wanted; a++)
			wanted = strcmp(argv[a], sorted[i]->name) == 0 || file_is(sorted[i]->file, argv[a]);
		if (!wanted)
			continue;
		rng_state = UNIT_RNG_SEED;
		sorted[i]->run();
		nrun++;
	}
	free(sorted);
	if (nrun == 0)
	{
		fprintf(stderr, "no test or test file is named");
		for (int a = 1; a < argc; a++)
			fprintf(stderr, " %s", argv[a]);
		fprintf(stderr, "\n");
		return 2;
	}

	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}

/* ---- checks ---- */

bool
check(bool ok, const char *what, const char *file, int line)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
	}
	return ok;
}

const char *
status_name(bf_status status)
{
	static const char *const names[] = {
		"BF_OK", "BF_FALSE_POSITIVE_RATE_RANGE", "BF_CAPACITY_RANGE",
		"BF_M_RANGE", "BF_K_RANGE", "BF_TOO_LARGE", "BF_FORMAT_VERSION",
		"BF_HASH_SCHEME", "BF_FLAGS", "BF_LENGTH", "BF_PADDING_BITS",
		"BF_BLOCK_SHAPE", "BF_SYNTAX", "BF_BASE64",
		"BF_GROWTH_RANGE", "BF_TIGHTENING_RANGE", "BF_RATE_UNHOLDABLE",
		"BF_STAGES", "BF_STAGE_COUNT", "BF_STAGE_SHAPE", "BF_SCALABLE_SYNTAX"
	};

	if ((unsigned) status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "(unknown status)";
}

void
check_status(bf_status actual, bf_status expected, const char *what,
			 const char *file, int line)
{
	if (!check(actual == expected, what, file, line))
		fprintf(stderr, "    got %s, expected %s\n",
				status_name(actual), status_name(expected));
}

/* ---- test data ---- */

uint64_t	rng_state = UNIT_RNG_SEED;

uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
	return z ^ (z >> 31);
}

void
rng_fill(uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t) rng_next();
}

void *
xmalloc(size_t n)
{
	void	   *p = malloc(n > 0 ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* A copy of data in a buffer of exactly len bytes. */
void *
exact_copy(const void *data, size_t len)
{
	void	   *p = xmalloc(len);

	if (len > 0)
		memcpy(p, data, len);
	return p;
}

bf_hash
hash_int64(int64_t value)
{
	uint8_t		bytes[8];

	/* canonical bytes of an int8: little-endian, as in the golden vectors */
	for (int i = 0; i < 8; i++)
		bytes[i] = (uint8_t) ((uint64_t) value >> (8 * i));
	return bf_hash_bytes(bytes, sizeof(bytes));
}

void
naive_set_bit(uint8_t *bits, uint64_t i)
{
	bits[i / 8] |= (uint8_t) (1 << (i % 8));
}

int			interrupt_calls;

void
count_interrupt(void)
{
	interrupt_calls++;
}

uint64_t
bits_digest(const uint8_t *bits, uint64_t m)
{
	return XXH3_64bits(bits, (size_t) bloom_payload_bytes(m));
}

uint8_t *
build_filter(uint64_t m, uint32_t k, uint8_t scheme, int64_t first, int64_t n, bool pipelined)
{
	static bf_adder adder;
	uint8_t    *bits = xmalloc((size_t) bloom_payload_bytes(m));

	memset(bits, 0, (size_t) bloom_payload_bytes(m));
	bf_adder_init(&adder, bits, m, k, scheme);
	adder.pipelined = pipelined;
	for (int64_t key = first; key < first + n; key++)
	{
		if (pipelined)
			bf_adder_add(&adder, hash_int64(key));
		else
			bf_add(bits, m, k, scheme, hash_int64(key));
	}
	bf_adder_flush(&adder);
	return bits;
}

const BloomHeader valid_header = {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, 3, 0, 18};

/* hashing: golden vectors */
const golden_hash golden[NGOLDEN] = {
	{
		"\"\"", (const uint8_t *) "", 0,
		0x6001c324468d497f, 0x99aa06d3014798d8,
		{359465, 934809, 551647, 168485, 743828, 360666, 936010},
		{412346426439, 1072328996682, 632799939146, 193270881610,
		853253451853, 413724394318, 1073706964561}
	},
	{
		"\"a\"", (const uint8_t *) "a", 1,
		0xe6c632b61e964e1f, 0xa96faf705af16834,
		{864056, 539947, 215838, 850236, 526127, 202018, 836415},
		{991167690273, 619379304059, 247590917845, 975314159410,
		603525773196, 231737386981, 959460628546}
	},
	{
		"\"hello world\"", (const uint8_t *) "hello world", 11,
		0xa99b8775cc15b6c7, 0xdf8d09e93f874900,
		{635038, 513543, 392049, 270554, 149059, 27565, 864576},
		{728458819022, 589091135245, 449723451468, 310355767691,
		170988083914, 31620400137, 991764344139}
	},
	{
		"int8 42", (const uint8_t *) "\x2a\0\0\0\0\0\0\0", 8,
		0x61c2164e8b895a45, 0x9bab3e2f55e1fe86,
		{366022, 948872, 573216, 197560, 780410, 404754, 29098},
		{419868069516, 1088460979684, 657542262073, 226623544461,
		895216454629, 464297737018, 33379019406}
	},
};
