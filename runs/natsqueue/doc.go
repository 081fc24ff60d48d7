// Package natsqueue runs workflow stages on more than one machine through
// NATS JetStream. It is lunad's only user of nats.go.
//
// # Design
//
// The engine (package runs) stays the single writer of the workspace and
// the only one that evaluates transitions; it is not changed. With a
// queue, the daemon passes Queue.NewAgent as runs.Options.NewProcess, so a
// stage with a `command` gets a queue agent instead of a process agent.
// Its Process publishes a stage message and waits for the result; `lunad
// worker` processes (Worker) consume stage messages, run the command with
// the process agent (package procagent) in their own clone of the
// workspace and publish the result. The engine then records the outcome
// and commits the stage's writes exactly as for a local process.
//
// # Streams and subjects
//
// With Options.Name N (default "LUNAD"), Open makes sure two streams exist,
// creating those that are missing (existing ones are used as they are):
//
//	N_STAGES   subjects N.stages.WORKFLOW.STAGE   work queue, file storage
//	N_RESULTS  subjects N.results.KEY.ATTEMPT     limits (24h), file storage
//
// both with a duplicate window of Options.DuplicateWindow (default 1h). A
// stage message is JSON: the lunad.StageRequest (references to the input
// artifacts, the run's params, earlier stages' small outputs — never
// artifact content), the stage's argv and timeout, the agent version the
// daemon computed, and when it was sent. A result is JSON: the attempt it
// answers, the lunad.StageResponse or the error the agent failed with and
// its Permanent flag, with the worker's name and agent version.
//
// # Who may do what
//
// Every message is signed (sign.go): the daemon signs its stage messages
// and each worker its results with an nkeys user key (ed25519) whose seed
// is in Options.KeyFile (LoadKey makes it on first use, 0600), over a
// canonical encoding of the kind (stage or result), the subject, the
// attempt's identity (run, workflow and its version, stage, attempt,
// idempotency key) and the body's SHA-256; the signer's public key and
// the signature travel in the Luna-Signer and Luna-Signature headers.
// Options.Trusted are the keys a process acts on: a daemon takes a result
// only when one of its workers signed it and it names the attempt the
// daemon waits for; a worker runs a stage message only when one of its
// daemons signed it within the duplicate window and the stage's timeout.
// Any other message is dropped, logged with why, and counted
// (Queue.Dropped): never committed, never run. A Process that was sent a
// forged result reads the results stream every few seconds from then on,
// so a flood of them cannot crowd the real one out of its subscription.
//
// A worker runs only its clone's own workflow (confine.go): it reads
// .luna/workflows/WORKFLOW.toml in its clone and refuses — with a signed
// result saying why, nothing run — a message whose workflow version is not
// the file's, or whose command is not the stage's in the file. It runs the
// command in its clone (never a directory the message names) through
// WorkerOptions.Sandbox, with the clone's .git and .luna read-only,
// unless the stage says `sandbox = false` in the file.
//
// The NATS server's own security comes first: separate users with
// subject permissions (testdata/nats-server.conf, in docs/runs.md) and
// Options' credentials (user and password, nkey seed, creds file).
//
// # Exactly one effect
//
// The stage message's Nats-Msg-Id is "<idempotency key>/<attempt>"
// (StageRequest.IdempotencyKey is the stage visit's key): publishing an
// attempt again — Process tries again while the server is away — is stored
// once by the server, which says so in the PubAck (Duplicate, logged). The
// result's ID is the message's plus "/result/" and a digest of the result,
// so that no one can take it before the worker. Process subscribes to its
// result subject before publishing, and looks the result up in the results
// stream when its publish was a duplicate or its connection came back, so
// no result is missed. Whatever reaches the engine twice anyway (a worker
// that lost its message to redelivery and still finished) is recorded by
// the engine as DUPLICATE_IGNORED: the engine's receiver is idempotent.
//
// # Workers and redelivery
//
// Workers share one durable pull consumer ("workers", or "workers-HASH"
// for workers with the same WorkerOptions.Agents) with explicit acks,
// Options.AckWait and Options.MaxDeliver. While its agent runs, a worker
// sends a heartbeat (InProgress) every AckWait/3. It acknowledges the stage
// message only after the server acknowledged the result's publish, so a
// worker killed mid-stage leaves its message to be redelivered to another
// worker after AckWait. A worker that stops (its Run context is done) stops
// its stages and naks their messages.
//
// WorkerOptions.Agents filters on workflow and stage names ("review" or
// "review.draft"): JetStream refuses consumers of one work queue whose
// filters overlap, so the workers of a deployment partition the stages.
//
// # Dead letters
//
// JetStream has no dead-letter queue. The Queue follows its advisories
// $JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.N_STAGES.* (a message
// delivered MaxDeliver times and never acknowledged) and
// $JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.N_STAGES.* (a worker
// terminated it: not a lunad stage message): the Process waiting for that
// message fails at once with a transient *lunad.AgentError, and the
// message is deleted. The engine's retry policy decides: another attempt
// (a new message), or when the stage's attempts are exhausted
// DEAD_LETTERED. Process also deletes its message when it gives up
// waiting (its context is done), so no worker runs an attempt the engine
// no longer waits for. An advisory missed while the daemon was
// disconnected costs the stage's timeout: "no worker answered within …",
// transient.
//
// # The server away
//
// The connection reconnects for ever. Process keeps trying to publish
// (with the same message ID) until its context — which carries the
// stage's timeout — is done; a worker keeps trying to fetch, and to
// publish a finished stage's result. A stage waits up to its timeout, then
// its attempt fails and the engine's retry policy decides; nothing is
// lost or applied twice.
//
// # Durability
//
// JetStream's file store writes every message at once but fsyncs only
// every 2 minutes by default; nats-server v2.15.2 offers `jetstream {
// sync_interval: always }` (server.Options.SyncAlways) to fsync each
// write. lunad does not require it, and does not take an acknowledgement
// from JetStream as durable: the engine takes a stage's outcome as final
// only once it is recorded in the run's log in git. If the server loses
// unsynced writes in a crash, a lost stage message or result costs the
// stage's timeout and a retry (a new attempt); a lost acknowledgement
// costs a redelivery whose result no one reads. Operators who would rather
// not pay those timeouts after a power loss set sync_interval: always.
//
// A daemon restarted while a stage was queued runs the stage again as a
// new attempt; a worker may still run the old message, whose result no one
// reads.
//
// The signing and verifying keys are in keys.go and sign.go; it is the only
// package that links nats.go.
package natsqueue
