// Package natsqueue runs workflow stages on other machines through NATS
// JetStream (issue 12).
package natsqueue
