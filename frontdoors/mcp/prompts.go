package mcp

// MCP prompts: one per agent of the roster abcd ships (agents/*.md, read through the Roster port),
// and one driver prompt that tells any harness how to run a spec through the build loop to the end.
// They are declared here once, from the roster and the one driver text, and served the same over
// stdio and HTTP; the list is fixed for the life of the process, so it is encoded once.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/abcd-dev/abcd/domain/layout"
	"github.com/abcd-dev/abcd/domain/loop"
	"github.com/abcd-dev/abcd/domain/record"
	"github.com/abcd-dev/abcd/domain/refusal"
	"github.com/abcd-dev/abcd/domain/roster"
	"github.com/abcd-dev/abcd/domain/text"
	"github.com/abcd-dev/abcd/ports"
)

// DriverPrompt is the name of the prompt that drives a spec's run to the end.
const DriverPrompt = "drive"

// promptDef is the Prompt object prompts/list lists.
type promptDef struct {
	Name        string      `json:"name"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Arguments   []promptArg `json:"arguments"`
}

type promptArg struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// prompt is one prompt served: its definition, and the text prompts/get renders from arguments
// that have already been checked.
type prompt struct {
	def    promptDef
	check  map[string]func(string) error // per argument: the domain type that checks its value
	render func(args map[string]string) string
}

// promptSet is every prompt served, in name order, with the list results encoded once.
type promptSet struct {
	list           []prompt
	byName         map[string]*prompt
	legacy, modern json.RawMessage
}

// buildPrompts makes the driver prompt and one prompt per roster agent. A roster that cannot be
// read leaves the driver alone and says so, as a verb whose schema cannot be served is withheld.
func buildPrompts(src ports.RosterSource, logf func(string, ...any)) []prompt {
	out := []prompt{driverPrompt()}
	if src != nil {
		ros, err := src.Roster()
		if err != nil {
			logf("the roster's prompts are not served: %v", err)
		} else {
			for _, a := range ros.Agents() {
				out = append(out, agentPrompt(a))
			}
		}
	}
	slices.SortFunc(out, func(a, b prompt) int { return strings.Compare(a.def.Name, b.def.Name) })
	return out
}

func (s *Server) encodePrompts(list []prompt) error {
	s.prompts = promptSet{list: list, byName: make(map[string]*prompt, len(list))}
	defs := make([]promptDef, len(list))
	for i := range s.prompts.list {
		p := &s.prompts.list[i]
		s.prompts.byName[p.def.Name] = p
		defs[i] = p.def
	}
	type promptsList struct {
		Prompts []promptDef `json:"prompts"`
		modernFields
	}
	var err error
	if s.prompts.legacy, err = marshal(promptsList{Prompts: defs}); err != nil {
		return err
	}
	s.prompts.modern, err = marshal(promptsList{Prompts: defs, modernFields: s.modern(true)})
	return err
}

// promptMessage is a PromptMessage with text content.
type promptMessage struct {
	Role    string  `json:"role"`
	Content content `json:"content"`
}

// getPrompt answers prompts/get. An unknown prompt, or arguments that are missing, unknown, not
// strings, or refused by the value's own type, are Invalid params: a prompt has no result to carry
// a refusal in.
func (s *Server) getPrompt(m *message, modern bool) (json.RawMessage, *rpcError) {
	name, ok := m.Params["name"].(string)
	if !ok {
		return nil, newError(codeInvalidParams, "Invalid params: prompts/get needs params.name (a string)")
	}
	p, found := s.prompts.byName[name]
	if !found {
		return nil, newError(codeInvalidParams, "Invalid params: no prompt is named "+text.Clip(name)+" (prompts/list names them)")
	}
	if m.ArgsErr != nil {
		return nil, newError(codeInvalidParams, "Invalid params: arguments: "+m.ArgsErr.Error())
	}
	given := map[string]any{}
	if raw, present := m.Params["arguments"]; present {
		obj, isObject := raw.(map[string]any)
		if !isObject {
			return nil, newError(codeInvalidParams, "Invalid params: arguments must be an object of strings")
		}
		given = obj
	}
	args := make(map[string]string, len(p.def.Arguments))
	for k, v := range given {
		if _, known := p.check[k]; !known {
			return nil, newError(codeInvalidParams, "Invalid params: the prompt "+name+" takes no argument "+text.Clip(k))
		}
		str, isString := v.(string)
		if !isString {
			return nil, newError(codeInvalidParams, "Invalid params: argument "+k+" must be a string")
		}
		if err := p.check[k](str); err != nil {
			why := err.Error()
			if r, ok := refusal.As(err); ok {
				why = r.Why
			}
			return nil, newError(codeInvalidParams, "Invalid params: argument "+k+": "+why)
		}
		args[k] = str
	}
	for _, a := range p.def.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, newError(codeInvalidParams, "Invalid params: the prompt "+name+" needs the argument "+a.Name)
		}
	}
	res := struct {
		Description string          `json:"description"`
		Messages    []promptMessage `json:"messages"`
		modernFields
	}{Description: p.def.Description, Messages: []promptMessage{{Role: "user", Content: content{Type: "text", Text: p.render(args)}}}}
	if modern {
		res.modernFields = s.modern(false)
	}
	b, err := marshal(res)
	if err != nil {
		return nil, newError(codeInternalError, "Internal error: "+err.Error())
	}
	return b, nil
}

// checkRef and checkPath hold an argument to the rule of the value it names, so a prompt refuses
// what the tool taking the same value refuses.
func checkRef(v string) error {
	var r record.Ref
	return r.UnmarshalText([]byte(v))
}

func checkPath(v string) error {
	var p loop.ReturnPath
	return p.UnmarshalText([]byte(v))
}

// agentPrompt is a roster agent's definition, with the brief it is to follow.
func agentPrompt(a roster.Agent) prompt {
	return prompt{
		def: promptDef{
			Name:        a.Name,
			Title:       "abcd " + a.Name,
			Description: a.Description,
			Arguments: []promptArg{{Name: "brief", Required: true,
				Description: "the brief abcd wrote for this agent: the path an await of implement_step names (absolute)"}},
		},
		check: map[string]func(string) error{"brief": checkPath},
		render: func(args map[string]string) string {
			var b strings.Builder
			b.WriteString(strings.TrimSpace(a.Body))
			b.WriteString("\n\n## Your brief\n\nRead the brief at `" + args["brief"] + "` whole before anything else, and follow it: ")
			b.WriteString("it names what you review and where it is checked out, and the exact shape of your return. ")
			b.WriteString("Your final message is your return: whoever started you places it at the return path the brief names and hands it in. ")
			b.WriteString("Change nothing, write no file and run no abcd command.\n")
			return b.String()
		},
	}
}

// driverPrompt tells a harness how to run a spec through the build loop to the end. It is the one
// driver text: the Claude Code plugin's build command is rendered from it (see the drift test).
func driverPrompt() prompt {
	return prompt{
		def: promptDef{
			Name:  DriverPrompt,
			Title: "abcd: build a spec to the end",
			Description: "Drive abcd's build loop for one spec until the run is finished or handed back: " +
				"start a fresh agent for every open await, hand each return back, and report the record.",
			Arguments: []promptArg{{Name: "spec", Required: true,
				Description: "the spec to build: its id, a unique prefix of it, or a slug fragment (spec_list lists them)"}},
		},
		check:  map[string]func(string) error{"spec": checkRef},
		render: func(args map[string]string) string { return DriverText(args["spec"]) },
	}
}

// DriverText is the driver prompt's text for a spec.
func DriverText(spec string) string {
	return driverText("Build spec "+spec+" with abcd's build loop, to the end.",
		`Start the run: call implement_start with {"spec": "`+spec+`"}. Keep the run id it returns (run.run). `+
			`If it refuses because the spec already has an unfinished run, call implement_status and go on with that run instead.`)
}

// driverText is the one driver text: the goal, how the run starts, then the loop every run follows
// to its end (a spec run, a review run and an audit run alike).
func driverText(goal, start string) string {
	return goal + driverIntro + "1. " + start + "\n" + driverLoop
}

const driverIntro = ` You are the harness: you start agents and hand back what they write; abcd decides every next step and checks everything that comes back. Use the abcd MCP tools named below (each is also a command: implement_step is ` + "`abcd implement step --json`" + `, and so on).

`

const driverLoop = `2. Call implement_step with {"run": "<the run id>"}. It starts every lane that can start and returns the open awaits (run.awaits), each with an id, a lane, a role, a brief and a return path (both absolute), and next lines (next) saying what to do for each.
   When the person's machine sends roles to runners (the status tool's oracle.agents name a route whose why says "runner"), call implement_run with {"run": "<the run id>"} here instead, for a spec's run: abcd itself drives every step its runners take, for as long as that takes, and returns the run when it is finished or only your agents' work is left (its ended says which). Go on from step 3 with the awaits it leaves, if any; an await a runner is taking says so in its next line: start no agent for it.
3. For every open await not already handed to an agent, start one fresh sub-agent, all of them at once: the awaits open together never depend on each other, so run them in parallel when you can. Give each only its brief:
   - role implementer: a general-purpose agent that may edit files and run commands, told to read the brief at await.brief whole and follow it. The brief names the lane's own checkout (a git worktree) to work in, the branch, the definition of done, the receipt to write at await.return, and how the agent hands it in itself (or hands the step back, saying why, when it cannot be done).
   - role ruthless-reviewer, security-reviewer or intent-auditor: the agent of that name (your own agent of that name, or this server's prompt of that name with the brief argument), told to read the brief at await.brief. It changes nothing and writes no file: its final message is its return.
   A fresh agent remembers nothing and shares nothing: never give it another agent's work, and never start two agents for one await.
4. When an agent finishes, hand its await in. For a reviewer or the auditor, you place its return: write its final message, whole and unchanged, to await.return. Then, for every role, call implement_receipt with {"path": "<await.return>"}. It may take as long as the definition of done takes (abcd runs it on the lane's head before the reviews open): give the call the time it needs. What it answers:
   - recorded: go on.
   - refused with code receipt_recorded: it was handed in already (an implementer hands in its own receipt): go on.
   - refused with code return_refused: the return is wrong, and its why says what. Give that why to the same agent if your harness can continue it, or else start one fresh agent of the same role with the brief and that why; place and hand in its new return the same way.
   - contention (kind contention, exit 3): another call holds the run; call it again.
5. Go back to step 2 and repeat until implement_step returns run.finished true. A failed review round of a spec's lane opens a fix await for a fresh implementer and then fresh reviewers; a lane that builds on others starts when they are done; a lane an implementer handed back stays handed back, and the run goes on with the lanes that do not build on it; the intent-auditor audits the integrated result last. Each is just another await: do nothing else by hand. When implement_step returns no open await and the run is not finished, its next line says what the run waits for: a merge between lanes that conflicted names the checkout and branch to resolve it in, the merge to make, and the one call that continues the same run; show that line to the person, and once they say it is resolved (or ask you to resolve it, and you have), make that call and go on from step 2.
6. When the run is finished, call implement_record with {"run": "<the run id>"} and report to the person: each lane and its stage, the verdicts by role and by route, every lane handed back with its findings, and the branch that holds the result.

Never write a receipt yourself or change a return's words, never edit anything else under ` + layout.Local + `, and never merge or delete a lane's branch by hand unless a next line asks you to: abcd does that.
`
