package window

// FreshTokenizer is a tokenizer of the named tiktoken encoding with an
// empty count cache of its own (the determinism test counts everything
// anew).
func FreshTokenizer(name string) Tokenizer { return newCached(name, &tiktokenCounter{name: name}) }
