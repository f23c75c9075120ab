package runner

// qoderUnsupported is why Qoder CLI is not driven yet ("" once it is).
const qoderUnsupported = "abcd has not been proven against the real qodercli: its model requests go to Qoder's own service, which abcd cannot stand in for on loopback without a Qoder account, so its stream is known only from its documentation"
