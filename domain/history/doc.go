// Package history holds what abcd keeps of the agents' sessions: transcripts read from each harness's
// own files (Claude Code, Codex, Gemini CLI), their lineage (a sub-agent's parent session; the run,
// lane and await a session served), and what redaction must catch before anything is kept: secrets
// (gitleaks' rule set, as data, and abcd's own rules beside it: a secret-named key's value, a
// headerless private key), the credentials abcd holds (with domain/secret's one scrubber), and the
// person's home path. It is pure: no I/O, no clock, no randomness.
package history
