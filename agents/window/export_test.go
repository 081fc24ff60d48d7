package window

// FreshTokenizer is a tokenizer of the named tiktoken encoding with an
// empty count cache of its own (the determinism test counts everything
// anew).
func FreshTokenizer(name string) Tokenizer { return newCached(name, &tiktokenCounter{name: name}) }

// CountBounded is the tiktoken counter's loop with encode in tiktoken's
// place; MaxRun the longest run it hands encode.
var CountBounded = countBounded

const MaxRun = maxRun

// EncodeWhole counts text with the named encoding in one call to
// tiktoken, as the counter did before it cut long runs.
func EncodeWhole(name, text string) int {
	c := encoding(name).c.(*tiktokenCounter)
	c.count("") // loads the vocabulary once
	return len(c.enc.EncodeOrdinary(text))
}

// CountUncached counts text with the shared encoding, past its cache.
func CountUncached(name, text string) int { return encoding(name).c.count(text) }
