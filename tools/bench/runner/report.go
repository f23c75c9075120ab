package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/abcd-dev/abcd/tools/bench/benchkit"
)

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", benchkit.MS(d)) }

// cpu is a CPU time, or a dash where the system did not report it.
func cpu(d time.Duration) string {
	if d == 0 {
		return "CPU not reported"
	}
	return "CPU " + ms(d)
}

func signed(d time.Duration) string { return fmt.Sprintf("%+.1f ms", benchkit.MS(d)) }

func pageVerdict(met bool) string {
	if met {
		return "met"
	}
	return "**not met**"
}

// cliLabel names a measured CLI on the page.
func cliLabel(name string) string {
	if name == "replay" {
		return "a recorded Claude Code stream, replayed"
	}
	return "real " + name + " against its stand-in"
}

// markdown is the driver's section of docs/performance.md.
func (rep *report) markdown() string {
	var b strings.Builder
	b.WriteString("## The runner route\n\n")
	b.WriteString("What abcd adds to a step a runner (a headless coding-agent CLI) takes, against the same CLI started\n")
	b.WriteString("directly, measured alternately in the same run (`go run ./tools/bench/runner`). Target: at most 5% or\n")
	b.WriteString("50 ms a step, whichever is larger. ")
	if rep.real {
		b.WriteString("The real CLIs (from `tools/harness`, `make harness-deps`) answer from loopback\nstand-ins of their vendors' APIs with a dummy key; beside them, ")
	} else {
		b.WriteString("The real CLIs were not installed in this run (`make harness-deps`);\n")
	}
	b.WriteString("a recorded Claude Code stream replayed by this driver (abcd's start-up hook run first, as\nClaude Code runs it), the smallest CLI there can be, shows the adapter's own cost.\n\n")
	b.WriteString("### One step\n\n")
	fmt.Fprintf(&b, "The CLI started directly with the adapter's command line, environment and prompt (read to EOF, waited\nfor), against a step through `adapters/runner` (its private folder and files, the process group, the\nbounded reader, the parser, the ledger, scrubbing, ending the group); %d steps each for the replayed\nstream, %d for each real CLI.\n\n", 10*rep.cfg.n, rep.cfg.n)
	b.WriteString("| CLI | direct (median, p90) | through the adapter (median, p90) | added | target |\n| --- | --- | --- | --- | --- |\n")
	for _, f := range rep.single {
		fmt.Fprintf(&b, "| %s | %s, %s | %s, %s | %s (%+.1f%%) | %s |\n", cliLabel(f.name), ms(f.direct), ms(f.directP90), ms(f.adapter), ms(f.adapterP90), signed(f.over), 100*f.ratio, pageVerdict(f.met))
	}

	b.WriteString("\n### Eight steps at once\n\n")
	fmt.Fprintf(&b, "8 of the CLI's processes started directly at once, each in its own folder, against 8 steps through\nthe adapter at once (its runner's concurrency 8, each step holding one of its slot files); the\nfigure is the wall of the whole batch, so what is added is what each of the 8 steps waits longer.\n%d batches each for the replayed stream, %d for each real CLI, the order swapped every batch.\n\n", rep.cfg.batches, rep.cfg.realBatches)
	b.WriteString("| CLI | 8 direct (median, p90; CPU) | 8 through the adapter (median, p90; CPU) | added | target |\n| --- | --- | --- | --- | --- |\n")
	for _, f := range rep.batch {
		if f.failed != "" {
			fmt.Fprintf(&b, "| %s | not measured: %s | | | **not met** |\n", cliLabel(f.name), strings.ReplaceAll(f.failed, "\n", " "))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s, %s; %s | %s, %s; %s | %s (%+.1f%%) | %s |\n", cliLabel(f.name), ms(f.direct), ms(f.directP90), cpu(f.directCPU),
			ms(f.adapter), ms(f.adapterP90), cpu(f.adapterCPU), signed(f.over), 100*f.ratio, pageVerdict(f.met))
	}
	b.WriteString("\nCPU is the user and system time the batch's processes used (the CLIs and what they started), a\nmedian: what a batch costs whatever else the machine was doing, where its wall grows with the load.\n")

	b.WriteString("\n### The loop: `abcd implement run`\n\n")
	fmt.Fprintf(&b, "`abcd implement run` (the built binary) drives a spec of independent lanes whose every step one runner\ntakes (concurrency 8): the implementer, both reviewers, and the auditor on the integration. The\nrunner's CLI is the driver's own binary replaying Claude Code's stream: the implementer writes a file\nin its worktree, the validators pass. A runner's implementer needs a definition of done, so the\nrepository's `build.dod` is `true`. The reference does the same work without abcd, alternately with\nit, %d runs each: the same number of CLI invocations (their command lines prepared untimed by the\nadapter) with the same parallelism (at most 8 at once; a lane's reviews after its implementer), a\nbranch and worktree per lane, the implementer's commit, an integration branch with every lane merged.\nWhat is left is abcd's own work: the CLI's preflight (`--version`, `--help`) before the run, the\nrun's state and locks, the briefs, checking and committing the work, `build.dod`, placing the\nanswers, the receipts.\n\n", rep.cfg.loops)
	b.WriteString("| spec | runner steps | reference (median, p90) | `implement run` (median, p90) | added a step | target |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, f := range rep.loop {
		fmt.Fprintf(&b, "| %s | %d | %s, %s | %s, %s | %s (%+.0f%% of the reference) | %s |\n", laneWords(f.lanes), f.steps, ms(f.ref), ms(f.refP90), ms(f.abcd), ms(f.abcdP90), signed(f.perStep), 100*f.ratio, pageVerdict(f.met))
	}
	if c, ok := rep.realClaude(); ok && len(rep.loop) > 0 {
		f := rep.loop[len(rep.loop)-1]
		fmt.Fprintf(&b, "\nThe replayed CLI answers in milliseconds, so the ratios above are of a reference with almost no\nCLI in it. A real Claude Code step took %s here (started directly, above): the %s abcd adds a\nstep on %s is %.1f%% of it.\n", ms(c), signed(f.perStep), laneWords(f.lanes), 100*float64(f.perStep)/float64(c))
	}
	b.WriteString("\n")
	return b.String()
}

// realClaude is the median of a real Claude Code step started directly, when it was measured.
func (rep *report) realClaude() (time.Duration, bool) {
	for _, f := range rep.single {
		if f.name == "claude" {
			return f.direct, true
		}
	}
	return 0, false
}

func laneWords(n int) string {
	if n == 1 {
		return "1 lane"
	}
	return fmt.Sprintf("%d lanes", n)
}

// targets are the rows of the page's Targets table.
func (rep *report) targets() []benchkit.Target {
	var out []benchkit.Target
	for _, f := range rep.single {
		out = append(out, benchkit.Target{What: "a runner step through the adapter, " + cliLabel(f.name) + ": at most 5% or 50 ms added",
			Figure: fmt.Sprintf("%s (%+.1f%%; %s against %s)", signed(f.over), 100*f.ratio, ms(f.adapter), ms(f.direct)), Met: f.met})
	}
	for _, f := range rep.batch {
		t := benchkit.Target{What: "8 runner steps at once through the adapter, " + cliLabel(f.name) + ": at most 5% or 50 ms added"}
		if f.failed != "" {
			t.Figure = "not measured: " + strings.ReplaceAll(f.failed, "\n", " ")
		} else {
			t.Figure, t.Met = fmt.Sprintf("%s a batch (%+.1f%%; %s against %s)", signed(f.over), 100*f.ratio, ms(f.adapter), ms(f.direct)), f.met
		}
		out = append(out, t)
	}
	for _, f := range rep.loop {
		out = append(out, benchkit.Target{What: fmt.Sprintf("`abcd implement run`, %s on a runner: at most 5%% or 50 ms added a step", laneWords(f.lanes)),
			Figure: fmt.Sprintf("%s a step over %d steps (%+.0f%%; %s against %s)", signed(f.perStep), f.steps, 100*f.ratio, ms(f.abcd), ms(f.ref)), Met: f.met})
	}
	return out
}
