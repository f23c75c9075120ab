// Package group starts a command as the leader of its own process group, so an adapter can end the
// command and everything it started as one (a runner's CLI, the definition of done's shell). Unix
// only: Windows has no such group, and its adapters say so instead.
package group
