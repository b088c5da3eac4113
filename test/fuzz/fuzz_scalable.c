/*
 * fuzz_scalable.c: libFuzzer harness for scalable filters (core/scalable.c):
 * the validator, the text form and adding.
 *
 * The first byte chooses what the rest is.  0: a text form, which must
 * decode only into a body the validator accepts with its shapes, and then
 * encode back to exactly the input (one text form per value).  Anything
 * else: a stored or binary body; one the validator accepts must survive the
 * text form byte for byte, and adding values to it (opening stages while
 * the body stays small) must keep it valid and find every value added.
 */
#include "fuzz.h"

#include "core/scalable.h"

/* Largest body an add may grow to here: the shapes come from the input. */
#define FUZZ_SCALABLE_MAX_BODY ((uint64_t) 1 << 20)

static void
fuzz_text_input(const char *text, size_t size)
{
	size_t		body_len = 0;
	uint8_t    *body;
	bf_scalable_view view;
	char	   *again;

	if (bf_scalable_text_decode(text, size, NULL, &body_len) != BF_OK)
		return;
	/* the base64 lengths are checked when measuring: the body is no larger than the text */
	FUZZ_ASSERT(body_len <= BF_SCALABLE_HEADER_BYTES + size * 6);
	body = fuzz_malloc(body_len);
	if (bf_scalable_text_decode(text, size, body, &body_len) == BF_OK &&
		bf_scalable_parse(body, body_len, true, &view) == BF_OK)
	{
		FUZZ_ASSERT(bf_scalable_text_length(body, &view) == size);
		again = fuzz_malloc(size + 1);
		bf_scalable_text_encode(body, &view, again);
		FUZZ_ASSERT(memcmp(again, text, size) == 0);
		free(again);
	}
	free(body);
}

static void
fuzz_body_input(const uint8_t *data, size_t size)
{
	bf_scalable_view view;
	bf_scalable_view text_view;
	uint8_t    *body;
	uint8_t    *decoded;
	char	   *text;
	uint64_t	length;
	size_t		decoded_len = 0;

	if (bf_scalable_parse(data, size, false, &view) != BF_OK)
		return;
	/* the stages tile the body exactly */
	FUZZ_ASSERT(view.length == size);
	FUZZ_ASSERT(view.stage[view.stages - 1].offset +
				bf_scalable_stage_bytes(view.stage[view.stages - 1].m) == size);

	length = bf_scalable_text_length(data, &view);
	text = fuzz_malloc((size_t) length + 1);
	bf_scalable_text_encode(data, &view, text);
	FUZZ_ASSERT(strlen(text) == length);
	FUZZ_ASSERT(bf_scalable_text_decode(text, (size_t) length, NULL, &decoded_len) == BF_OK);
	FUZZ_ASSERT(decoded_len == size);
	decoded = fuzz_malloc(decoded_len);
	FUZZ_ASSERT(bf_scalable_text_decode(text, (size_t) length, decoded, &decoded_len) == BF_OK);
	FUZZ_ASSERT(memcmp(decoded, data, size) == 0);
	FUZZ_ASSERT(bf_scalable_parse(decoded, decoded_len, false, &text_view) == BF_OK);
	free(decoded);
	free(text);

	/* adding: only to a value whose shapes are its parameters' */
	if (bf_scalable_parse(data, size, true, &view) != BF_OK)
		return;
	body = fuzz_copy(data, size);
	for (int64_t v = 0; v < 64; v++)
	{
		bf_hash		hash = bf_hash_bytes(&v, sizeof(v));
		bf_scalable_add_result result = bf_scalable_add(body, &view, hash);

		if (result == BF_SCALABLE_FULL)
		{
			uint64_t	m,
						new_length;
			uint32_t	k;
			uint8_t		scheme;

			if (bf_scalable_stage_plan(&view.params, view.stages, view.length, &m, &k,
									   &scheme, &new_length) != BF_OK ||
				new_length > FUZZ_SCALABLE_MAX_BODY)
				break;
			body = realloc(body, new_length);
			FUZZ_ASSERT(body != NULL);
			bf_scalable_append_stage(body, &view, m, k, scheme);
			result = bf_scalable_add(body, &view, hash);
			FUZZ_ASSERT(result == BF_SCALABLE_ADDED);
		}
		FUZZ_ASSERT(bf_scalable_contains(body, &view, hash));
	}
	FUZZ_ASSERT(bf_scalable_parse(body, view.length, true, &text_view) == BF_OK);
	free(body);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *copy;

	if (size < 1)
		return 0;
	/* an exact copy, so that a read past the end is caught */
	copy = fuzz_copy(data + 1, size - 1);
	if (data[0] == 0)
		fuzz_text_input((const char *) copy, size - 1);
	else
		fuzz_body_input(copy, size - 1);
	free(copy);
	return 0;
}
