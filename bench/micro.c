/*
 * micro.c: micro-benchmark of the core, without a server.
 *
 *     cc -O2 -I src bench/micro.c src/core/*.c -lm -o micro && ./micro
 *
 * Reports ns per add and per lookup (XXH3-128 of 8 bytes, then k probes) on
 * a filter for n = 1,000,000 at p = 0.01 (m = 9585059, 1.2 MB, k = 7), and
 * the throughput of base64 and popcount on 12 MB.  Each figure is the best
 * of a few repetitions.
 *
 *     ./micro chase BYTES...
 *
 * instead reports, for buffers of each size, the latency of one dependent
 * random load: a pointer chase through every cache line of a malloc'd
 * buffer in one random cycle (Sattolo's shuffle), so each load waits for
 * the one before, as one probe of a filter that size does when rows are
 * evaluated one at a time (bench/scale.sh).  Prints "chase BYTES NS" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/core.h"

#define REPEAT 5

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Keep the smaller of *best and the time since start. */
static void
keep_best(double *best, double start)
{
	double		elapsed = now() - start;

	if (elapsed < *best)
		*best = elapsed;
}

static bf_hash
hash_key(uint64_t key)
{
	return bf_hash_bytes(&key, sizeof(key));
}

/* ns per dependent load in a buffer of bytes: best of REPEAT chases */
static double
chase_ns(size_t bytes)
{
	const size_t line_words = 64 / sizeof(uint64_t);
	size_t		lines = bytes / 64;
	uint64_t   *buffer;
	uint64_t   *order;
	uint64_t	state = 0x9E3779B97F4A7C15u;
	uint64_t	steps = lines * 4 > 20000000 ? lines * 4 : 20000000;
	uint64_t	at = 0;
	double		best = 1e9;

	if (lines < 2)
		return 0;
	buffer = malloc(lines * 64);
	order = malloc(lines * sizeof(uint64_t));
	if (buffer == NULL || order == NULL)
		exit(1);
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	/* Sattolo: one cycle through all lines */
	for (size_t i = lines - 1; i > 0; i--)
	{
		size_t		j;
		uint64_t	swap;

		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		j = (size_t) (state % i);
		swap = order[i];
		order[i] = order[j];
		order[j] = swap;
	}
	for (size_t i = 0; i < lines; i++)
		buffer[order[i] * line_words] = order[(i + 1) % lines] * line_words;
	free(order);
	for (int r = 0; r < REPEAT; r++)
	{
		double		start = now();

		for (uint64_t s = 0; s < steps; s++)
			at = buffer[at];
		keep_best(&best, start);
	}
	free(buffer);
	/* the chain's end depends on every load: print nothing, return it hidden */
	return best / steps * 1e9 + (at == UINT64_MAX ? 1 : 0);
}

int
main(int argc, char **argv)
{
	const int64_t n = 1000000;
	uint64_t	m;
	uint32_t	k;
	size_t		nbytes;
	uint8_t    *bits;
	double		best_add = 1e9,
				best_hit = 1e9,
				best_miss = 1e9,
				best_encode = 1e9,
				best_decode = 1e9,
				best_popcount = 1e9;
	uint64_t	found = 0;

	if (argc > 1 && strcmp(argv[1], "chase") == 0)
	{
		for (int i = 2; i < argc; i++)
		{
			size_t		bytes = (size_t) strtoull(argv[i], NULL, 10);

			printf("chase %zu %.1f\n", bytes, chase_ns(bytes));
		}
		return 0;
	}
	if (bf_optimal_shape(0.01, n, &m, &k) != BF_OK)
		return 1;
	nbytes = (size_t) bloom_payload_bytes(m);
	bits = calloc(nbytes, 1);

	for (int r = 0; r < REPEAT; r++)
	{
		double		start;

		memset(bits, 0, nbytes);
		start = now();
		for (int64_t key = 0; key < n; key++)
			bf_add_hash(bits, m, k, hash_key(key));
		keep_best(&best_add, start);

		start = now();
		for (int64_t key = 0; key < n; key++)
			found += bf_contains_hash(bits, m, k, hash_key(key));
		keep_best(&best_hit, start);

		start = now();
		for (int64_t key = n; key < 2 * n; key++)
			found += bf_contains_hash(bits, m, k, hash_key(key));
		keep_best(&best_miss, start);
	}
	printf("filter m = %llu (%.2f MB), k = %u, n = %lld\n",
		   (unsigned long long) m, nbytes / 1e6, k, (long long) n);
	printf("add:             %6.1f ns\n", best_add / n * 1e9);
	printf("lookup, member:  %6.1f ns\n", best_hit / n * 1e9);
	printf("lookup, absent:  %6.1f ns\n", best_miss / n * 1e9);

	{
		size_t		size = 12 * 1000 * 1000;
		size_t		len = (size_t) bf_base64_length(size);
		uint8_t    *data = malloc(size);
		uint8_t    *back = malloc(size);
		char	   *text = malloc(len);
		uint64_t	count = 0;

		for (size_t i = 0; i < size; i++)
			data[i] = (uint8_t) (i * 2654435761u >> 13);
		for (int r = 0; r < REPEAT; r++)
		{
			double		start = now();

			bf_base64_encode(data, size, text);
			keep_best(&best_encode, start);
			start = now();
			if (bf_base64_decode(text, len, back, size) != BF_OK)
				return 1;
			keep_best(&best_decode, start);
			start = now();
			count += bf_popcount(data, size);
			keep_best(&best_popcount, start);
		}
		if (memcmp(data, back, size) != 0)
			return 1;
		printf("base64 encode:   %6.0f MB/s of bit array (12 MB)\n", size / best_encode / 1e6);
		printf("base64 decode:   %6.0f MB/s of bit array (12 MB)\n", size / best_decode / 1e6);
		printf("popcount:        %6.0f MB/s (12 MB)\n", size / best_popcount / 1e6);
		found += count;
		free(data);
		free(back);
		free(text);
	}
	/* keep the lookups from being optimized away */
	return found == 0;
}
