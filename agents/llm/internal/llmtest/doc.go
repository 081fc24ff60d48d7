// Package llmtest is the HTTP model server the provider tests talk to: a
// real httptest server on 127.0.0.1 that records every request (path,
// header, JSON body) and answers with canned replies in order.
package llmtest
