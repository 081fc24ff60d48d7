package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lunad/lunad"
	"github.com/lunad/lunad/agents/llm"
	"github.com/lunad/lunad/agents/policy"
	"github.com/lunad/lunad/config"
	"github.com/lunad/lunad/daemon"
	"github.com/lunad/lunad/sandbox"
)

var cmdDoctor = &command{
	name:    "doctor",
	args:    "",
	summary: "say whether goals can run here: the sandbox, the policy, the model, the tests",
	help: `doctor probes what a goal needs, as the daemon would: the sandbox
(bwrap's path and version, whether it can make namespaces and a network
namespace, the Landlock ABI and what is applied with it, and every other
mitigation in force — capabilities dropped, the commands' uid, no_new_privs,
the seccomp filter, how processes and memory are limited, the tmpfs sizes —
with a WARNING where one is missing, the commands' homes),
the policy file .luna/policy.toml (checked: each problem as FILE:LINE:COL),
the model goals use ([llm] with [agents.goal] over it; the name of the
variable holding the key and whether it is set, never the key), and the
test commands ([tests] commands), the queue ([queue]: its URL, how
lunad logs in to the NATS server, the daemon's signing key, the worker
keys it takes results from and the daemon keys a worker clone trusts,
with a WARNING where one is missing; it does not connect), and the MCP
HTTP server's token directory (a WARNING when it is not private). The exit code is 1 when goals could not
run (a policy file that does not check, a sandbox that cannot run while the
policy says unsandboxed = "refuse", no model configured), and the message
says what to do; --json prints the report.`,
	minArgs: 0, maxArgs: 0,
	run: runDoctor,
}

// goalCheck is what a goal needs, as this host and workspace have it.
type goalCheck struct {
	caps       sandbox.Capabilities
	home       string
	homeErr    error
	policyFile string
	present    bool
	pol        *policy.Policy
	policyErr  error
	sandboxErr error // sandbox.New under the policy
	llm        llm.Config
	llmErr     error
}

// checkGoals probes the sandbox and reads the policy and the
// configuration of the workspace at root.
func checkGoals(ctx context.Context, root string, cfg config.Config, getenv func(string) string) goalCheck {
	return checkGoalsWith(sandbox.Probe(ctx), root, cfg, getenv)
}

// checkGoalsWith is checkGoals on a host with caps.
func checkGoalsWith(caps sandbox.Capabilities, root string, cfg config.Config, getenv func(string) string) goalCheck {
	c := goalCheck{policyFile: filepath.Join(root, filepath.FromSlash(policy.File)), caps: caps}
	c.home, c.homeErr = daemon.SandboxHome(root, getenv)
	_, err := os.Stat(c.policyFile)
	c.present = err == nil
	c.pol, c.policyErr = policy.Load(root)
	if c.policyErr == nil {
		set := c.pol.Sandbox()
		_, c.sandboxErr = sandbox.New(c.caps, sandbox.Options{AllowUnsandboxed: set.Unsandboxed == policy.Warn,
			AllowRootWithoutLandlock: set.RootWithoutLandlock == policy.Warn, Getenv: getenv})
	}
	c.llm, c.llmErr = cfg.LLMFor("goal")
	return c
}

// refusal is why no goal can start now (nil if one can); commands: the
// goal runs commands (not --plan or --dry-run), so needs the sandbox.
func (c goalCheck) refusal(commands bool) error {
	var errs []error
	if c.policyErr != nil {
		errs = append(errs, daemon.PolicyFileError(c.policyErr))
	}
	if c.llmErr != nil {
		errs = append(errs, c.llmErr)
	}
	if commands && c.sandboxErr != nil {
		errs = append(errs, c.sandboxErr)
	}
	if commands && c.homeErr != nil {
		errs = append(errs, c.homeErr)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("no goal can run here: %w", errors.Join(errs...))
}

// doctorReport is `lunad doctor --json`.
type doctorReport struct {
	Sandbox struct {
		sandbox.Capabilities
		Usable      bool                 `json:"usable"`
		Mitigations []sandbox.Mitigation `json:"mitigations"`
		Home        string               `json:"home"`
	} `json:"sandbox"`
	Policy struct {
		File        string        `json:"file"`
		Present     bool          `json:"present"`
		OK          bool          `json:"ok"`
		Problems    []string      `json:"problems,omitempty"`
		Unsandboxed string        `json:"unsandboxed,omitempty"`
		RootNoLL    string        `json:"root_without_landlock,omitempty"`
		Network     bool          `json:"network"`
		Shell       bool          `json:"shell"`
		ReadOnly    []string      `json:"read_only,omitempty"`
		DeniedReads []string      `json:"denied_reads,omitempty"`
		Limits      *doctorLimits `json:"limits,omitempty"`
	} `json:"policy"`
	LLM struct {
		Configured bool   `json:"configured"`
		Provider   string `json:"provider,omitempty"`
		Model      string `json:"model,omitempty"`
		BaseURL    string `json:"base_url,omitempty"`
		KeyEnv     string `json:"api_key_env,omitempty"`
		KeySet     bool   `json:"api_key_set"`
		// KeyNeeded is false for a server that needs no key: none is
		// named, or it is local (llm.Config.LocalServer).
		KeyNeeded bool   `json:"api_key_needed"`
		Error     string `json:"error,omitempty"`
	} `json:"llm"`
	Tests struct {
		Commands [][]string `json:"commands"`
	} `json:"tests"`
	Queue doctorQueue `json:"queue"`
	MCP   doctorMCP   `json:"mcp"`
	Goals struct {
		CanRun   bool     `json:"can_run"`
		Problems []string `json:"problems,omitempty"`
	} `json:"goals"`
}

// doctorLimits are the policy's limits of each command.
type doctorLimits struct {
	Timeout   string `json:"timeout"`
	CPU       string `json:"cpu"`
	Memory    int64  `json:"memory"`
	Processes int    `json:"processes"`
	FileSize  int64  `json:"file_size"`
	Output    int    `json:"output"`
	Disk      int64  `json:"disk"`
}

func runDoctor(m *Main, ctx context.Context, fs *flagSet, args []string) error {
	if _, err := fs.parse(args); err != nil {
		return err
	}
	cfg, err := m.config()
	if err != nil {
		return err
	}
	root := findRoot(m.workDir())
	c := checkGoals(ctx, root, cfg, m.Getenv)
	r := c.report(cfg, m.Getenv)
	r.Queue, r.MCP = checkQueue(cfg.Queue, root), checkMCP(root)
	if m.json {
		err = m.printJSON(r)
	} else {
		err = printDoctor(m, c, r)
	}
	if err != nil {
		return err
	}
	return c.refusal(true)
}

// report is c as doctor's JSON has it.
func (c goalCheck) report(cfg config.Config, getenv func(string) string) doctorReport {
	var r doctorReport
	r.Sandbox.Capabilities, r.Sandbox.Usable, r.Sandbox.Home = c.caps, c.caps.Usable(), c.home
	r.Sandbox.Mitigations = c.caps.Mitigations()
	p := &r.Policy
	p.File, p.Present, p.OK = c.policyFile, c.present, c.policyErr == nil
	var fe *lunad.CheckError
	switch {
	case errors.As(c.policyErr, &fe):
		for _, pr := range fe.Problems {
			p.Problems = append(p.Problems, pr.String())
		}
	case c.policyErr != nil:
		p.Problems = []string{c.policyErr.Error()}
	default:
		s := c.pol.Sandbox()
		l := s.Limits
		p.Unsandboxed, p.Network, p.Shell, p.ReadOnly = string(s.Unsandboxed), s.Network, s.Shell, s.ReadOnly
		p.RootNoLL, p.DeniedReads = string(s.RootWithoutLandlock), s.Denied
		p.Limits = &doctorLimits{l.Timeout.String(), l.CPU.String(), l.Memory, l.Processes, l.FileSize, l.Output, l.Disk}
	}
	l := &r.LLM
	l.Configured = c.llmErr == nil
	l.Provider, l.Model, l.KeyEnv = c.llm.Provider, c.llm.Model, c.llm.KeyEnv()
	if c.llm.BaseURL != "" {
		l.BaseURL = lunad.RedactURL(c.llm.BaseURL)
	}
	l.KeySet = l.KeyEnv != "" && getenv(l.KeyEnv) != ""
	l.KeyNeeded = c.llm.KeyNeeded()
	if c.llmErr != nil {
		l.Error = c.llmErr.Error()
	}
	r.Tests.Commands = cfg.Tests.Commands
	if r.Tests.Commands == nil {
		r.Tests.Commands = [][]string{}
	}
	r.Goals.CanRun = c.refusal(true) == nil
	for _, e := range []error{c.policyErr, c.llmErr, c.sandboxErr, c.homeErr} {
		if e != nil {
			r.Goals.Problems = append(r.Goals.Problems, e.Error())
		}
	}
	return r
}

// printDoctor writes the report for a person. What the workspace's
// files say (the model, the test commands, the policy's paths) is
// quoted where it holds control characters, so a workspace cannot
// write to the terminal — rewrite or hide a line of the report.
func printDoctor(m *Main, c goalCheck, r doctorReport) error {
	p := &errWriter{w: m.Stdout}
	p.printf("sandbox\n%s", indent(strings.TrimRight(c.caps.String(), "\n"), "  ")+"\n")
	p.printf("  commands' homes: one per goal under %s\n", orWhat(r.Sandbox.Home, "unknown: "+errText(c.homeErr)))
	pol := r.Policy
	switch {
	case !pol.OK:
		p.printf("policy %s: does not check\n%s\n", pol.File, indent(strings.Join(pol.Problems, "\n"), "  "))
	default:
		src := "present"
		if !pol.Present {
			src = "not present: lunad's defaults"
		}
		p.printf("policy %s (%s)\n", pol.File, src)
		p.printf("  unsandboxed = %q, root_without_landlock = %q, network = %t, shell = %t, read-only: %s\n", pol.Unsandboxed, pol.RootNoLL, pol.Network, pol.Shell, strings.Join(printableAll(pol.ReadOnly), ", "))
		lim := pol.Limits
		p.printf("  limits: timeout %s, cpu %s, memory %s, processes %d, file size %s, output %s, goal's disk %s\n",
			lim.Timeout, lim.CPU, lunad.FormatSize(lim.Memory), lim.Processes, lunad.FormatSize(lim.FileSize), lunad.FormatSize(int64(lim.Output)), lunad.FormatSize(lim.Disk))
		if len(pol.DeniedReads) > 0 {
			p.printf("  reads denied (hidden from commands, left out of search and the agents' contexts): %s\n", strings.Join(printableAll(pol.DeniedReads), ", "))
		}
		p.printf("  %s\n", policy.AdvisoryNote)
	}
	l := r.LLM
	if !l.Configured {
		p.printf("model ([llm], [agents.goal] over it): not configured: %s\n", l.Error)
	} else {
		p.printf("model ([llm], [agents.goal] over it): %s %s", printable(l.Provider), printable(l.Model))
		if l.BaseURL != "" {
			p.printf(" at %s", printable(l.BaseURL))
		}
		switch {
		case l.KeyEnv == "":
			p.printf(", no API key needed\n")
		case l.KeySet:
			p.printf(", API key in %s (set)\n", printable(l.KeyEnv))
		case !l.KeyNeeded:
			p.printf(", no API key needed at a local server (%s is not set, which is fine)\n", printable(l.KeyEnv))
		default:
			p.printf(", API key in %s (NOT set: set it in the daemon's environment)\n", printable(l.KeyEnv))
		}
	}
	if len(r.Tests.Commands) == 0 {
		p.printf("tests ([tests] commands): none configured: a goal runs no tests unless given --test (its report says so)\n")
	} else {
		p.printf("tests ([tests] commands):\n")
		for _, argv := range r.Tests.Commands {
			p.printf("  %s\n", strings.Join(printableAll(argv), " "))
		}
	}
	printQueue(p, r.Queue, r.MCP)
	if r.Goals.CanRun {
		p.printf("goals: can run\n")
	} else {
		p.printf("goals: cannot run (see below)\n")
	}
	return p.err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
