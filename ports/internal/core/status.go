package core

// maxRunsLooked bounds how many runs status reads, newest first.
const MaxRunsLooked = 64
