// Package history holds what abcd keeps of the agents' sessions: transcripts read from each harness's
// own files (Claude Code, Codex, Gemini CLI), their lineage (a sub-agent's parent session; the run,
// lane and await a session served), and what redaction must catch before anything is kept: secrets
// (gitleaks' rule set, as data), the credentials abcd holds, and the person's home path. It is pure:
// no I/O, no clock, no randomness.
package history
