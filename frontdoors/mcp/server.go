package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports/app"
	"github.com/abcd-dev/abcd/ports/mcpwire"
)

// Options configure a server.
type Options struct {
	// Log receives diagnostics, one line each; nil discards them. It is never stdout.
	Log io.Writer
	// Only, when not nil, are the only tools served (listed and called): a step's request-scoped
	// catalog (an ACP runner's abcd read verbs). A name no verb has is an error.
	Only []string
}

// Server answers MCP messages for one repository's core. It is safe for concurrent use.
type Server struct {
	core *app.App

	logMu sync.Mutex
	log   io.Writer

	tools     []*tool
	byName    map[string]*tool
	withheld  []Withheld
	resources []resource
	byURI     map[string]*resource
	prompts   promptSet
	info      implementation

	// budget bounds the memory the messages being read, parsed and served hold at once.
	budget *budget
	// tasks are the runs going on for 2026-07-28 clients after their tools/call was answered.
	tasks *taskStore

	// Results that never change while the process lives, encoded once.
	toolsLegacy, toolsModern         json.RawMessage
	resourcesLegacy, resourcesModern json.RawMessage
	templatesLegacy, templatesModern json.RawMessage
	discover                         json.RawMessage
}

// implementation is the MCP Implementation object naming this server.
type implementation = mcpwire.Implementation

// listTTLMs is how long a client may keep a list result: the lists are fixed for the life of the
// process (the tool list comes from the binary's verb table, the resources are its embedded schemas).
const listTTLMs = 3_600_000

// instructions is the guidance server/discover and initialize give a model.
const instructions = "abcd keeps this repository's development record (intents, specs, issues, decisions) and runs " +
	"its build loop. Each tool is one abcd verb; its structuredContent is exactly the JSON `abcd <verb> --json` " +
	"prints, described by the tool's outputSchema. A call abcd refuses comes back with isError true and a refusal " +
	"document (kind, code, what, why, remedy) as its text: follow the remedy. Tools marked readOnlyHint never write; " +
	"mutating tools never ask a question over MCP, so pass the consent their input schema offers (such as yes) " +
	"when the person has agreed. To build a spec, get the drive prompt: it says how to run the build loop to the end."

// New builds a server over a's core. The core it keeps has no Prompter: over MCP nobody can answer a
// question, so a verb that needs consent refuses unless its input gives it.
func New(a *app.App, opts Options) (*Server, error) {
	if a == nil || a.Schemas == nil {
		return nil, fmt.Errorf("mcp: the core has no schema catalog")
	}
	core := *a
	core.Prompter = nil
	s := &Server{core: &core, log: opts.Log, budget: newBudget(memoryBudget), tasks: newTaskStore()}
	version := a.Build.Version
	if version == "" {
		version = "dev"
	}
	s.info = implementation{Name: "abcd", Title: "abcd", Version: version}

	s.tools, s.withheld = buildTools(app.Table(), core.Schemas)
	if opts.Only != nil {
		var err error
		if s.tools, err = only(s.tools, opts.Only); err != nil {
			return nil, err
		}
	}
	s.byName = make(map[string]*tool, len(s.tools))
	for _, t := range s.tools {
		s.byName[t.verb.Name] = t
	}
	for _, w := range s.withheld {
		s.logf("tool %s is not served: %s", w.Verb, w.Reason)
	}
	res, err := buildResources(core.Schemas)
	if err != nil {
		return nil, fmt.Errorf("mcp: reading the schema index: %w", err)
	}
	s.resources = res
	s.byURI = make(map[string]*resource, len(res))
	for i := range s.resources {
		s.byURI[s.resources[i].URI] = &s.resources[i]
	}
	if err := s.encodePrompts(buildPrompts(core.Roster, s.logf)); err != nil {
		return nil, err
	}
	if err := s.encodeFixedResults(); err != nil {
		return nil, err
	}
	return s, nil
}

// only keeps the tools named, in their order; a name that is no tool's is an error.
func only(tools []*tool, names []string) ([]*tool, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []*tool
	for _, t := range tools {
		if want[t.verb.Name] {
			out = append(out, t)
			delete(want, t.verb.Name)
		}
	}
	for n := range want {
		return nil, &UnknownToolError{Name: n}
	}
	return out, nil
}

// UnknownToolError is a tool named to serve alone that no verb has (or that is withheld).
type UnknownToolError struct{ Name string }

func (e *UnknownToolError) Error() string { return "mcp: no tool is named " + e.Name }

// Tools names the tools served, in the order tools/list lists them.
func (s *Server) Tools() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.verb.Name
	}
	return names
}

// Withheld lists the verbs not served and why; empty when every verb is served.
func (s *Server) Withheld() []Withheld { return append([]Withheld(nil), s.withheld...) }

func (s *Server) logf(format string, args ...any) {
	if s.log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = fmt.Fprintf(s.log, "abcd mcp: "+format+"\n", args...) // a diagnostic whose write failed has nowhere left to go
}

// resultMeta is the _meta every modern result carries: who answered.
type resultMeta struct {
	ServerInfo implementation `json:"io.modelcontextprotocol/serverInfo"`
}

// modernFields are the members a 2026-07-28 result adds; legacy results leave them out.
type modernFields struct {
	ResultType string      `json:"resultType,omitempty"`
	TTLMs      *int64      `json:"ttlMs,omitempty"`
	CacheScope string      `json:"cacheScope,omitempty"`
	Meta       *resultMeta `json:"_meta,omitempty"`
}

func (s *Server) modern(cacheable bool) modernFields {
	f := modernFields{ResultType: "complete", Meta: &resultMeta{ServerInfo: s.info}}
	if cacheable {
		ttl := int64(listTTLMs)
		f.TTLMs, f.CacheScope = &ttl, "public"
	}
	return f
}

type capabilities struct {
	Tools     struct{} `json:"tools"`
	Resources struct{} `json:"resources"`
	Prompts   struct{} `json:"prompts"`
}

// modernCapabilities are what server/discover advertises: the extensions too, which only the
// 2026-07-28 revision has (tasks.go).
type modernCapabilities struct {
	capabilities
	Extensions map[string]struct{} `json:"extensions"`
}

func (s *Server) encodeFixedResults() error {
	defs := make([]json.RawMessage, len(s.tools))
	for i, t := range s.tools {
		defs[i] = t.def
	}
	type toolsList struct {
		Tools []json.RawMessage `json:"tools"`
		modernFields
	}
	type resourcesList struct {
		Resources []resource `json:"resources"`
		modernFields
	}
	type templatesList struct {
		ResourceTemplates []struct{} `json:"resourceTemplates"`
		modernFields
	}
	type discoverResult struct {
		SupportedVersions []string           `json:"supportedVersions"`
		Capabilities      modernCapabilities `json:"capabilities"`
		Instructions      string             `json:"instructions"`
		modernFields
	}
	var err error
	enc := func(v any) json.RawMessage {
		b, e := marshal(v)
		if e != nil && err == nil {
			err = e
		}
		return b
	}
	s.toolsLegacy = enc(toolsList{Tools: defs})
	s.toolsModern = enc(toolsList{Tools: defs, modernFields: s.modern(true)})
	s.resourcesLegacy = enc(resourcesList{Resources: s.resources})
	s.resourcesModern = enc(resourcesList{Resources: s.resources, modernFields: s.modern(true)})
	s.templatesLegacy = enc(templatesList{ResourceTemplates: []struct{}{}})
	s.templatesModern = enc(templatesList{ResourceTemplates: []struct{}{}, modernFields: s.modern(true)})
	s.discover = enc(discoverResult{SupportedVersions: SupportedVersions(), Instructions: instructions,
		Capabilities: modernCapabilities{Extensions: map[string]struct{}{tasksExtension: {}}}, modernFields: s.modern(true)})
	return err
}

// legacyState is what the handshake establishes: on stdio for the connection, on HTTP per session.
type legacyState struct {
	mu          sync.Mutex
	version     string // negotiated; empty before initialize
	initialized bool   // notifications/initialized arrived
}

func (l *legacyState) get() (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version, l.initialized
}

// httpHeaders are the request headers the 2026-07-28 revision mirrors from the body.
type httpHeaders struct {
	protocolVersion    string
	hasProtocolVersion bool
	method             string
	hasMethod          bool
	name               string
	hasName            bool
}

// era says how a message is served.
type era int

const (
	eraLegacy     era = iota // the handshake revisions, after initialize
	eraModern                // 2026-07-28, statelessly
	eraInitialize            // the legacy handshake itself
)

// classify decides a message's era from its body, with the HTTP headers (nil on stdio) as
// cross-checks: a request whose _meta names a protocol version is served per request; initialize
// opens the handshake; anything else is handshake traffic.
func (s *Server) classify(m *message, hdr *httpHeaders) (era, *rpcError) {
	version, claimed := m.Claim()
	if m.Method == "initialize" && !(claimed && namesModernRevision(version)) {
		if hdr != nil && hdr.hasProtocolVersion && namesModernRevision(hdr.protocolVersion) {
			return 0, newError(codeHeaderMismatch, "Header mismatch: initialize opens the 2025 handshake but MCP-Protocol-Version names "+text.Clip(hdr.protocolVersion)).WithStatus(http.StatusBadRequest)
		}
		return eraInitialize, nil
	}
	if claimed {
		if problem := envelopeProblem(m); problem != "" {
			return 0, newError(codeInvalidParams, "Invalid params: "+problem).WithStatus(http.StatusBadRequest)
		}
		if hdr != nil {
			if hdr.hasProtocolVersion && hdr.protocolVersion != version {
				return 0, newError(codeHeaderMismatch, fmt.Sprintf("Header mismatch: MCP-Protocol-Version %s does not match _meta protocol version %s",
					text.Clip(hdr.protocolVersion), text.Clip(version))).WithStatus(http.StatusBadRequest)
			}
			if hdr.hasMethod && hdr.method != m.Method {
				return 0, newError(codeHeaderMismatch, fmt.Sprintf("Header mismatch: Mcp-Method %s does not match the body method %s",
					text.Clip(hdr.method), text.Clip(m.Method))).WithStatus(http.StatusBadRequest)
			}
		}
		if !isModernVersion(version) {
			msg := "Unsupported protocol version"
			if isLegacyVersion(version) {
				msg += ": " + version + " is served through the initialize handshake, not per request"
			}
			return 0, (&rpcError{Code: codeUnsupportedVersion, Message: msg,
				Data: map[string]any{"supported": SupportedVersions(), "requested": version}}).WithStatus(http.StatusBadRequest)
		}
		if hdr != nil && !m.IsNotification() {
			if e := standardHeaderProblem(m, hdr); e != nil {
				return 0, e
			}
		}
		return eraModern, nil
	}
	if hdr != nil && hdr.hasProtocolVersion {
		switch {
		case namesModernRevision(hdr.protocolVersion):
			if m.IsNotification() {
				return eraModern, nil
			}
			return 0, newError(codeInvalidParams, "Invalid params: MCP-Protocol-Version names "+text.Clip(hdr.protocolVersion)+
				" but the request has no _meta "+metaProtocolVersion+"; a 2026-07-28 request carries "+metaProtocolVersion+
				" and "+metaClientCapabilities+" in params._meta").WithStatus(http.StatusBadRequest)
		case !isLegacyVersion(hdr.protocolVersion):
			return 0, (&rpcError{Code: codeUnsupportedVersion, Message: "Unsupported protocol version",
				Data: map[string]any{"supported": SupportedVersions(), "requested": hdr.protocolVersion}}).WithStatus(http.StatusBadRequest)
		}
	}
	return eraLegacy, nil
}

// envelopeProblem checks the per-request _meta of a 2026-07-28 request.
func envelopeProblem(m *message) string {
	meta, ok := m.Meta()
	if !ok {
		return "params._meta must be an object"
	}
	if v, ok := meta[metaProtocolVersion].(string); !ok || v == "" {
		return "_meta " + metaProtocolVersion + " must be a protocol version string"
	}
	caps, present := meta[metaClientCapabilities]
	if !present {
		return "_meta " + metaClientCapabilities + " is missing (an empty object declares no capabilities)"
	}
	if _, ok := caps.(map[string]any); !ok {
		return "_meta " + metaClientCapabilities + " must be an object"
	}
	if info, present := meta[metaClientInfo]; present {
		obj, ok := info.(map[string]any)
		if !ok {
			return "_meta " + metaClientInfo + " must be an object"
		}
		for _, k := range []string{"name", "version"} {
			if _, ok := obj[k].(string); !ok {
				return "_meta " + metaClientInfo + "." + k + " must be a string"
			}
		}
	}
	return ""
}

// standardHeaderProblem applies the 2026-07-28 header rules to a request: MCP-Protocol-Version and
// Mcp-Method are required, and Mcp-Name is required (and must match) when the body names a tool, a
// prompt or a resource.
func standardHeaderProblem(m *message, hdr *httpHeaders) *rpcError {
	mismatch := func(msg string) *rpcError {
		return newError(codeHeaderMismatch, "Header mismatch: "+msg).WithStatus(http.StatusBadRequest)
	}
	if !hdr.hasProtocolVersion {
		return mismatch("the MCP-Protocol-Version header is required")
	}
	if !hdr.hasMethod {
		return mismatch("the Mcp-Method header is required")
	}
	var field string
	switch m.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		field = "taskId"
	default:
		return nil
	}
	body, isString := m.Params[field].(string)
	if !hdr.hasName {
		if isString {
			return mismatch("the Mcp-Name header is required when params." + field + " is given")
		}
		return nil
	}
	name, ok := decodeHeaderValue(hdr.name)
	if !ok {
		return mismatch("the Mcp-Name header carries an invalid base64 value")
	}
	if isString && name != body {
		return mismatch(fmt.Sprintf("Mcp-Name %s does not match params.%s %s", text.Clip(name), field, text.Clip(body)))
	}
	return nil
}

// dispatch answers a request of the given era. version is the negotiated legacy revision.
func (s *Server) dispatch(ctx context.Context, m *message, e era, version string) (json.RawMessage, *rpcError) {
	modern := e == eraModern
	switch m.Method {
	case "tools/list":
		if e := rejectCursor(m); e != nil {
			return nil, e
		}
		if modern {
			return s.toolsModern, nil
		}
		return s.toolsLegacy, nil
	case "tools/call":
		return s.callTool(ctx, m, modern)
	case "resources/list":
		if e := rejectCursor(m); e != nil {
			return nil, e
		}
		if modern {
			return s.resourcesModern, nil
		}
		return s.resourcesLegacy, nil
	case "resources/templates/list":
		if e := rejectCursor(m); e != nil {
			return nil, e
		}
		if modern {
			return s.templatesModern, nil
		}
		return s.templatesLegacy, nil
	case "resources/read":
		return s.readResource(m, modern)
	case "prompts/list":
		if e := rejectCursor(m); e != nil {
			return nil, e
		}
		if modern {
			return s.prompts.modern, nil
		}
		return s.prompts.legacy, nil
	case "prompts/get":
		return s.getPrompt(m, modern)
	}
	if modern {
		switch m.Method {
		case "server/discover":
			return s.discover, nil
		case "tasks/get", "tasks/update", "tasks/cancel":
			return s.taskRequest(ctx, m)
		}
	} else if m.Method == "ping" {
		return json.RawMessage(`{}`), nil
	}
	return nil, s.methodNotFound(m.Method, modern)
}

func (s *Server) methodNotFound(method string, modern bool) *rpcError {
	msg := "Method not found: " + text.Clip(method)
	switch {
	case modern && (method == "initialize" || method == "ping" || method == "logging/setLevel"):
		msg += " (removed in 2026-07-28)"
	case !modern && method == "server/discover":
		msg += " (a 2026-07-28 method: send it with _meta " + metaProtocolVersion + ")"
	}
	return newError(codeMethodNotFound, msg).WithStatus(http.StatusNotFound)
}

// rejectCursor refuses a cursor: every list is one page, so no cursor this server gave exists.
func rejectCursor(m *message) *rpcError {
	if _, ok := m.Params["cursor"]; ok {
		return newError(codeInvalidParams, "Invalid params: invalid cursor (every list is a single page)")
	}
	return nil
}

// initialize answers the legacy handshake: the version asked for when it is served, else the
// newest handshake revision, which a client that cannot speak it will refuse.
func (s *Server) initialize(m *message) (string, json.RawMessage, *rpcError) {
	requested, ok := m.Params["protocolVersion"].(string)
	if !ok {
		return "", nil, newError(codeInvalidParams, "Invalid params: initialize needs params.protocolVersion")
	}
	if _, ok := m.Params["capabilities"].(map[string]any); !ok {
		return "", nil, newError(codeInvalidParams, "Invalid params: initialize needs params.capabilities (an object)")
	}
	if info, ok := m.Params["clientInfo"].(map[string]any); !ok {
		return "", nil, newError(codeInvalidParams, "Invalid params: initialize needs params.clientInfo (an object with name and version)")
	} else if _, ok := info["name"].(string); !ok {
		return "", nil, newError(codeInvalidParams, "Invalid params: initialize needs params.clientInfo.name")
	}
	version := mcpwire.Negotiate(requested)
	res, err := marshal(mcpwire.InitializeResult{ProtocolVersion: version, Capabilities: capabilities{}, ServerInfo: s.info, Instructions: instructions})
	if err != nil {
		return "", nil, newError(codeInternalError, "Internal error: "+err.Error())
	}
	return version, res, nil
}

func (s *Server) readResource(m *message, modern bool) (json.RawMessage, *rpcError) {
	uri, ok := m.Params["uri"].(string)
	if !ok {
		return nil, newError(codeInvalidParams, "Invalid params: resources/read needs params.uri")
	}
	r, found := s.byURI[uri]
	if !found {
		code := codeInvalidParams
		if !modern {
			code = codeResourceNotFound
		}
		return nil, &rpcError{Code: code, Message: "Resource not found", Data: map[string]any{"uri": text.Clip(uri)}}
	}
	data, ok, err := s.core.Schemas.Schema(r.schemaName)
	if err != nil || !ok {
		return nil, newError(codeInternalError, "Internal error: the schema "+r.schemaName+" could not be read")
	}
	type contents struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	res := struct {
		Contents []contents `json:"contents"`
		modernFields
	}{Contents: []contents{{URI: r.URI, MimeType: r.MimeType, Text: string(data)}}}
	if modern {
		res.modernFields = s.modern(true)
	}
	b, mErr := marshal(res)
	if mErr != nil {
		return nil, newError(codeInternalError, "Internal error: "+mErr.Error())
	}
	return b, nil
}
