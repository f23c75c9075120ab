package refusal

// Code is a refusal's stable identifier for machines: snake_case, one of the declared codes below.
// Every code abcd can answer with is declared here with its meaning; the published refusal schema
// lists them, and a test over the product code fails on a code written anywhere that is not
// declared, on a code spelled as a string rather than by its constant here, and on a declared code
// nothing uses.
type Code string

// Declared is one declared code and what it means.
type Declared struct {
	Code    Code
	Meaning string
}

// Codes lists every code abcd can answer with, with its meaning, in order.
func Codes() []Declared { return append([]Declared(nil), declared...) }

// The declared codes. A code is never renamed or reused for another meaning: a consumer branches on
// it.
const (
	CodeAgentUnknown              Code = "agent_unknown"
	CodeBaseUnknown               Code = "base_unknown"
	CodeBaseURLInvalid            Code = "base_url_invalid"
	CodeBranchDeleteFailed        Code = "branch_delete_failed"
	CodeBranchExists              Code = "branch_exists"
	CodeBranchInvalid             Code = "branch_invalid"
	CodeBudgetInvalid             Code = "budget_invalid"
	CodeChangeTooLarge            Code = "change_too_large"
	CodeFinishGHLoggedOut         Code = "finish_gh_logged_out"
	CodeFinishGHMissing           Code = "finish_gh_missing"
	CodeFinishNotFastForward      Code = "finish_not_fast_forward"
	CodeFinishPRFailed            Code = "finish_pr_failed"
	CodeFinishPushRefused         Code = "finish_push_refused"
	CodeFinishRemoteUnknown       Code = "finish_remote_unknown"
	CodeCLIInvalid                Code = "cli_invalid"
	CodeCLIMissing                Code = "cli_missing"
	CodeCommitFailed              Code = "commit_failed"
	CodeConfigFile                Code = "config_file"
	CodeConfigInvalid             Code = "config_invalid"
	CodeConfigKeyUnknown          Code = "config_key_unknown"
	CodeConfigValueInvalid        Code = "config_value_invalid"
	CodeConnectMixed              Code = "connect_mixed"
	CodeConnectTarget             Code = "connect_target"
	CodeConsentDeclined           Code = "consent_declined"
	CodeConsentNeeded             Code = "consent_needed"
	CodeCopiesDiffer              Code = "copies_differ"
	CodeEditRefused               Code = "edit_refused"
	CodeEnvNameInvalid            Code = "env_name_invalid"
	CodeEnvTwice                  Code = "env_twice"
	CodeExecutableInvalid         Code = "executable_invalid"
	CodeArgInvalid                Code = "arg_invalid"
	CodeArgsNotACP                Code = "args_not_acp"
	CodeMCPToolUnknown            Code = "mcp_tool_unknown"
	CodeFault                     Code = "fault"
	CodeFileInvalid               Code = "file_invalid"
	CodeGitUnavailable            Code = "git_unavailable"
	CodeGuardAllowFileBroken      Code = "guard_allow_file_broken"
	CodeGuardAllowPerson          Code = "guard_allow_person"
	CodeGuardCommandEmpty         Code = "guard_command_empty"
	CodeGuardCommandInvalid       Code = "guard_command_invalid"
	CodeGuardCwdInvalid           Code = "guard_cwd_invalid"
	CodeGuardCwdMissing           Code = "guard_cwd_missing"
	CodeGuardFileBroken           Code = "guard_file_broken"
	CodeGuardFileMissing          Code = "guard_file_missing"
	CodeGuardInputUnreadable      Code = "guard_input_unreadable"
	CodeHistoryCaptureWhat        Code = "history_capture_what"
	CodeHistoryConfigUnreadable   Code = "history_config_unreadable"
	CodeHistoryDateInvalid        Code = "history_date_invalid"
	CodeHistoryHarnessUnknown     Code = "history_harness_unknown"
	CodeHistoryNoCommit           Code = "history_no_commit"
	CodeHistoryNoRepository       Code = "history_no_repository"
	CodeHistoryOutsideRepository  Code = "history_outside_repository"
	CodeHistoryQueryInvalid       Code = "history_query_invalid"
	CodeHistorySecretSurvived     Code = "history_secret_survived"
	CodeHistorySessionAmbiguous   Code = "history_session_ambiguous"
	CodeHistorySessionInvalid     Code = "history_session_invalid"
	CodeHistorySessionUnknown     Code = "history_session_unknown"
	CodeHistoryTranscriptInvalid  Code = "history_transcript_invalid"
	CodeHistoryTranscriptMissing  Code = "history_transcript_missing"
	CodeHistoryTranscriptTooLarge Code = "history_transcript_too_large"
	CodeIDContention              Code = "id_contention"
	CodeIDUnique                  Code = "id_unique"
	CodeInputInvalid              Code = "input_invalid"
	CodeInputMissing              Code = "input_missing"
	CodeInputTooLarge             Code = "input_too_large"
	CodeInstallIncomplete         Code = "install_incomplete"
	CodeIntegrationUnmerged       Code = "integration_unmerged"
	CodeIntentNoCriteria          Code = "intent_no_criteria"
	CodeIntentNotReady            Code = "intent_not_ready"
	CodeIntentShipped             Code = "intent_shipped"
	CodeInterrupted               Code = "interrupted"
	CodeJournalInvalid            Code = "journal_invalid"
	CodeJournalStuck              Code = "journal_stuck"
	CodeKeyEnvInvalid             Code = "key_env_invalid"
	CodeKeyFileInvalid            Code = "key_file_invalid"
	CodeKeyTwice                  Code = "key_twice"
	CodeLifecycleUnknown          Code = "lifecycle_unknown"
	CodeMachineFolderOpen         Code = "machine_folder_open"
	CodeMachineLocked             Code = "machine_locked"
	CodeMCPBindRefused            Code = "mcp_bind_refused"
	CodeMCPListenFailed           Code = "mcp_listen_failed"
	CodeMCPRepoInvalid            Code = "mcp_repo_invalid"
	CodeMCPRepoUnavailable        Code = "mcp_repo_unavailable"
	CodeMergeFailed               Code = "merge_failed"
	CodeMergeFileUnreadable       Code = "merge_file_unreadable"
	CodeModelDenied               Code = "model_denied"
	CodeModelInvalid              Code = "model_invalid"
	CodeNameTaken                 Code = "name_taken"
	CodeNoRun                     Code = "no_run"
	CodeNotAFolder                Code = "not_a_folder"
	CodeNotARepository            Code = "not_a_repository"
	CodeNotInitialized            Code = "not_initialized"
	CodeNothingToReview           Code = "nothing_to_review"
	CodePathChanged               Code = "path_changed"
	CodePathInvalid               Code = "path_invalid"
	CodePathOutside               Code = "path_outside"
	CodeProviderExists            Code = "provider_exists"
	CodeProviderIncomplete        Code = "provider_incomplete"
	CodeProviderLimit             Code = "provider_limit"
	CodeProviderNameInvalid       Code = "provider_name_invalid"
	CodeProviderUnavailable       Code = "provider_unavailable"
	CodeProviderUnverified        Code = "provider_unverified"
	CodeReceiptNotAwaited         Code = "receipt_not_awaited"
	CodeReceiptPathInvalid        Code = "receipt_path_invalid"
	CodeReceiptRecorded           Code = "receipt_recorded"
	CodeRecordExists              Code = "record_exists"
	CodeRecordLocked              Code = "record_locked"
	CodeRecordMalformed           Code = "record_malformed"
	CodeRecordMissing             Code = "record_missing"
	CodeRecordMovedTwice          Code = "record_moved_twice"
	CodeRecordNotMoved            Code = "record_not_moved"
	CodeRecordSymlink             Code = "record_symlink"
	CodeRecordTooLarge            Code = "record_too_large"
	CodeRecordUncommitted         Code = "record_uncommitted"
	CodeRecordUnreadable          Code = "record_unreadable"
	CodeRefInvalid                Code = "ref_invalid"
	CodeRefUnknown                Code = "ref_unknown"
	CodeRefUnresolved             Code = "ref_unresolved"
	CodeReturnMissing             Code = "return_missing"
	CodeReturnRefused             Code = "return_refused"
	CodeReturnTooLarge            Code = "return_too_large"
	CodeRevisionInvalid           Code = "revision_invalid"
	CodeRoleRouted                Code = "role_routed"
	CodeRoleUnknown               Code = "role_unknown"
	CodeRouteInvalid              Code = "route_invalid"
	CodeRoutingInvalid            Code = "routing_invalid"
	CodeRulesDomainInvalid        Code = "rules_domain_invalid"
	CodeRulesDomainUnknown        Code = "rules_domain_unknown"
	CodeRulesFileInvalid          Code = "rules_file_invalid"
	CodeRulesPromptInvalid        Code = "rules_prompt_invalid"
	CodeRulesPromptUnreadable     Code = "rules_prompt_unreadable"
	CodeRunActive                 Code = "run_active"
	CodeRunAmbiguous              Code = "run_ambiguous"
	CodeRunIDContention           Code = "run_id_contention"
	CodeRunInvalid                Code = "run_invalid"
	CodeRunLocked                 Code = "run_locked"
	CodeRunMismatch               Code = "run_mismatch"
	CodeRunPathInvalid            Code = "run_path_invalid"
	CodeRunStateInvalid           Code = "run_state_invalid"
	CodeRunStateTooLarge          Code = "run_state_too_large"
	CodeRunUnknown                Code = "run_unknown"
	CodeRunnerDrifted             Code = "runner_drifted"
	CodeRunnerExists              Code = "runner_exists"
	CodeRunnerLimit               Code = "runner_limit"
	CodeRunnerNameInvalid         Code = "runner_name_invalid"
	CodeRunnerNeedsDoD            Code = "runner_needs_dod"
	CodeRunnerUnavailable         Code = "runner_unavailable"
	CodeRunnerUnknown             Code = "runner_unknown"
	CodeRunnerUnsupported         Code = "runner_unsupported"
	CodeRunnerUnverified          Code = "runner_unverified"
	CodeSandboxInvalid            Code = "sandbox_invalid"
	CodeSchemaNameInvalid         Code = "schema_name_invalid"
	CodeSchemaUnknown             Code = "schema_unknown"
	CodeSeverityUnknown           Code = "severity_unknown"
	CodeSourceEmpty               Code = "source_empty"
	CodeSourceInvalid             Code = "source_invalid"
	CodeSourceTooLong             Code = "source_too_long"
	CodeSpecClosed                Code = "spec_closed"
	CodeSpecNoSteps               Code = "spec_no_steps"
	CodeSpecOpen                  Code = "spec_open"
	CodeSpecTitleTaken            Code = "spec_title_taken"
	CodeSymlinkRefused            Code = "symlink_refused"
	CodeTextEmpty                 Code = "text_empty"
	CodeTextInvalid               Code = "text_invalid"
	CodeTierModelInvalid          Code = "tier_model_invalid"
	CodeTierTwice                 Code = "tier_twice"
	CodeTitleEmpty                Code = "title_empty"
	CodeTitleInvalid              Code = "title_invalid"
	CodeTitleTooLong              Code = "title_too_long"
	CodeTooManyChanges            Code = "too_many_changes"
	CodeTransitionRefused         Code = "transition_refused"
	CodeUsage                     Code = "usage"
	CodeWhyEmpty                  Code = "why_empty"
	CodeWhyInvalid                Code = "why_invalid"
	CodeWorktreeFailed            Code = "worktree_failed"
)

var declared = []Declared{
	{CodeAgentUnknown, "An agent named for a route is not one of the build loop's agents (implementer, ruthless-reviewer, security-reviewer, intent-auditor)."},
	{CodeArgInvalid, "An argument for an ACP agent's executable is empty, too long, or holds a NUL or a line break."},
	{CodeArgsNotACP, "Arguments were given for a runner whose CLI is not acp: abcd owns every other CLI's command line."},
	{CodeBaseUnknown, "No commit to start from was given and the repository has no default branch to start from."},
	{CodeBaseURLInvalid, "A provider's base URL is not an https address, or an http address on loopback, with its version path."},
	{CodeBranchDeleteFailed, "Git could not delete a branch abcd made."},
	{CodeBranchExists, "A lane's branch already exists, left by an earlier run."},
	{CodeBranchInvalid, "A branch name abcd made is not one git takes (a bug in abcd)."},
	{CodeBudgetInvalid, "A run's budget (US dollars, tokens or minutes) is not a number within its bounds."},
	{CodeChangeTooLarge, "A change to several files would be larger than the journal that makes it recoverable may hold."},
	{CodeCLIInvalid, "A runner's CLI is not one abcd knows (claude, codex, gemini, qoder, opencode)."},
	{CodeCLIMissing, "A runner is named without the CLI it drives."},
	{CodeCommitFailed, "Git could not stage or commit a runner step's work in its lane's worktree, or put the lane back where the step started."},
	{CodeConfigFile, "A configuration file is not one abcd reads: a link, not a regular file, or too large."},
	{CodeConfigInvalid, "A configuration file is not valid: not strict JSON, an unknown or misplaced key, or the wrong schema_version."},
	{CodeConfigKeyUnknown, "A configuration key named in a request is not a key abcd reads."},
	{CodeConfigValueInvalid, "A configuration value breaks its key's rule."},
	{CodeConnectMixed, "A connect gave a provider's value for a runner, or a runner's value for a provider."},
	{CodeConnectTarget, "A connect names neither a provider nor a runner, or names both."},
	{CodeConsentDeclined, "A step of abcd ahoy install that is required was declined, or the person declined to allow a weaker guard file."},
	{CodeConsentNeeded, "The install needs answers and nobody can give them here (no terminal and no --yes)."},
	{CodeCopiesDiffer, "Two copies of one record in two lifecycle folders differ, and abcd cannot choose between them."},
	{CodeEditRefused, "An edit would leave a record malformed."},
	{CodeEnvNameInvalid, "A variable named for a runner is not a variable's name, or is one abcd sets or keeps out itself (a session marker, a loader hook)."},
	{CodeEnvTwice, "A variable is named twice across a runner's credential and passed variables."},
	{CodeExecutableInvalid, "A runner's executable is not an absolute, clean path."},
	{CodeFault, "Something unexpected broke, or a refusal could not name itself; the why says what."},
	{CodeFileInvalid, "A path given is not a record file's path."},
	{CodeFinishGHLoggedOut, "A run finishes as a pull request (build.finish pr), but the person's gh is not logged in to the remote's host: gh auth status failed."},
	{CodeFinishGHMissing, "A run finishes as a pull request (build.finish pr), but no gh (the GitHub CLI) is on PATH."},
	{CodeFinishNotFastForward, "A run finishes by a fast-forward (build.finish merge), but the branch it finishes into moved, and abcd never makes a merge commit nor forces."},
	{CodeFinishPRFailed, "A run finishes as a pull request (build.finish pr): its integration branch was pushed, but gh could not open the pull request."},
	{CodeFinishPushRefused, "A run finishes as a pull request (build.finish pr), but the remote refused the push of its integration branch, which is never forced."},
	{CodeFinishRemoteUnknown, "A run finishes as a pull request (build.finish pr), but the remote it pushes to (build.remote) is absent or names no repository on a forge."},
	{CodeGitUnavailable, "Git cannot run here, and the verb needs it."},
	{CodeGuardAllowFileBroken, "The machine's allow file ($ABCD_HOME/guard-allowed.json) cannot be read as one, so it is not changed."},
	{CodeGuardAllowPerson, "Allowing a weaker guard file needs the person at their own terminal: nobody can answer here (no terminal, or MCP)."},
	{CodeGuardCommandEmpty, "The guard was given no command line to check."},
	{CodeGuardCommandInvalid, "The command line given to the guard is not text (invalid UTF-8)."},
	{CodeGuardCwdInvalid, "The folder given to the guard is not an absolute, clean path of plain text."},
	{CodeGuardCwdMissing, "The folder given to the guard does not exist, so no command can run in it."},
	{CodeGuardFileBroken, "The repository's .abcd/guard.json cannot be read as a guard file, so it cannot be allowed."},
	{CodeGuardFileMissing, "There is no .abcd/guard.json in the repository to allow."},
	{CodeGuardInputUnreadable, "The guard could not read the command line from its standard input."},
	{CodeHistoryCaptureWhat, "A history capture was given neither a session file nor --all, or both."},
	{CodeHistoryConfigUnreadable, "The configuration cannot be read, so the keys abcd holds are not known and no transcript is captured."},
	{CodeHistoryDateInvalid, "A history listing's since or until is not a day (YYYY-MM-DD) or a moment (RFC 3339), or since comes after until."},
	{CodeHistoryHarnessUnknown, "A harness named is not one abcd reads, or a session file lies in no harness's folder."},
	{CodeHistoryNoCommit, "The repository has no commit yet, and history is kept under its first."},
	{CodeHistoryNoRepository, "The folder abcd runs in is in no git repository, and history is kept per repository."},
	{CodeHistoryOutsideRepository, "A session ran outside this repository and its worktrees, or its file does not say where."},
	{CodeHistoryQueryInvalid, "A history search query is empty, too long, or holds no word."},
	{CodeHistorySecretSurvived, "Redaction left something the rescan finds in a transcript, so none of it is kept."},
	{CodeHistorySessionAmbiguous, "A session reference names several captured sessions."},
	{CodeHistorySessionInvalid, "A session reference is not a session's key, id or id prefix."},
	{CodeHistorySessionUnknown, "No captured session has that key, id or prefix."},
	{CodeHistoryTranscriptInvalid, "A session file is not one the harness wrote: not an absolute path, a link, not JSON, or not its format."},
	{CodeHistoryTranscriptMissing, "A session file named does not exist."},
	{CodeHistoryTranscriptTooLarge, "A session file is larger than abcd keeps of one transcript."},
	{CodeIDContention, "No free record id was found after repeated tries."},
	{CodeIDUnique, "A record asked to be renumbered is the only one carrying its id."},
	{CodeInputInvalid, "A verb's input is not what it takes: an unknown argument, a value of the wrong type, or arguments that do not match its input schema."},
	{CodeInputMissing, "A required argument of a verb is missing."},
	{CodeInputTooLarge, "A tool's arguments are past the message's bounds (a string, the nesting or the count of values)."},
	{CodeInstallIncomplete, "An abcd ahoy install was interrupted before it finished (.abcd/ stands without its config or its .gitignore), and nothing is written until it is run again."},
	{CodeIntegrationUnmerged, "The run that delivered a spec is not merged into the branch it would be closed or shipped on."},
	{CodeIntentNoCriteria, "An intent has no acceptance criteria to audit against."},
	{CodeIntentNotReady, "An intent does not pass the readiness gate."},
	{CodeIntentShipped, "An intent is shipped, so nothing is left to specify."},
	{CodeInterrupted, "The call was ended by its caller (Ctrl-C, SIGTERM, an MCP client's cancellation, a deadline) before it finished; no write it had not begun was made."},
	{CodeJournalInvalid, "The journal holds a change abcd cannot read or finish."},
	{CodeJournalStuck, "The journal holds a change a killed abcd left, which cannot be finished as it stands."},
	{CodeKeyEnvInvalid, "A provider's key_env is not an environment variable's name."},
	{CodeKeyFileInvalid, "A provider's key_file is not an absolute path to a file only its owner may read."},
	{CodeKeyTwice, "Both an environment variable and a file were named for a provider's key."},
	{CodeLifecycleUnknown, "A lifecycle named is not one of the record's."},
	{CodeMachineFolderOpen, "The machine folder ($ABCD_HOME) is open to group or others."},
	{CodeMachineLocked, "Another abcd held the machine folder's lock longer than the wait."},
	{CodeMCPBindRefused, "The MCP server was asked to listen on an address that is not loopback."},
	{CodeMCPListenFailed, "The MCP server could not listen on the address given."},
	{CodeMCPRepoInvalid, "The folder the MCP server was asked to serve cannot be served."},
	{CodeMCPRepoUnavailable, "This build of abcd cannot serve another repository over MCP."},
	{CodeMCPToolUnknown, "A tool was named for abcd mcp serve to serve alone, and no verb has it."},
	{CodeMergeFailed, "Git could not merge a lane's work."},
	{CodeMergeFileUnreadable, "A file handed to the record's merge driver is not one it can read."},
	{CodeModelDenied, "A model is on the denylist."},
	{CodeModelInvalid, "A model id is not one a provider names a model with."},
	{CodeNameTaken, "A provider or a runner would take a name the other kind of route already has."},
	{CodeNoRun, "No unfinished run exists in this repository."},
	{CodeNotAFolder, "A path abcd needs as a folder is something else."},
	{CodeNotARepository, "The folder is not inside a git repository."},
	{CodeNotInitialized, "The repository has no .abcd record yet."},
	{CodeNothingToReview, "There are no changes between the base and HEAD to review."},
	{CodePathChanged, "A file or folder changed while abcd was opening it."},
	{CodePathInvalid, "A path is not a repository path abcd may read."},
	{CodePathOutside, "A path leaves the folder it must stay inside."},
	{CodeProviderExists, "A provider of that name is already configured."},
	{CodeProviderIncomplete, "A provider is connected without its base URL or a model to verify it with."},
	{CodeProviderLimit, "The machine configures as many providers as it may."},
	{CodeProviderNameInvalid, "A provider's name is not one a provider may take."},
	{CodeProviderUnavailable, "This build of abcd has no provider adapter."},
	{CodeProviderUnverified, "The call that verifies a provider did not answer."},
	{CodeReceiptNotAwaited, "A return path handed in is not that of an open await."},
	{CodeReceiptPathInvalid, "A return path handed in is not a path a run's awaits name."},
	{CodeReceiptRecorded, "A return was recorded already."},
	{CodeRecordExists, "A record file of that name already exists."},
	{CodeRecordLocked, "Another abcd is changing the record."},
	{CodeRecordMalformed, "A record file breaks the record's rules."},
	{CodeRecordMissing, "A record file does not exist."},
	{CodeRecordMovedTwice, "One record stands in two lifecycle folders: a move to finish, not an id to change."},
	{CodeRecordNotMoved, "A record's interrupted move cannot be finished."},
	{CodeRecordSymlink, "A record file is a symbolic link."},
	{CodeRecordTooLarge, "A record file is larger than abcd reads."},
	{CodeRecordUncommitted, "A run would build records (its spec, its intent) that are not committed, as they stand, at the commit its lanes branch from."},
	{CodeRecordUnreadable, "A record file is not a regular file."},
	{CodeRefInvalid, "A record ref does not have a ref's shape."},
	{CodeRefUnknown, "A git ref names no commit."},
	{CodeRefUnresolved, "No record, or more than one, matches a record ref."},
	{CodeReturnMissing, "An agent's return does not exist yet."},
	{CodeReturnRefused, "An agent's return breaks the rules of its kind."},
	{CodeReturnTooLarge, "An agent's return is larger than abcd reads."},
	{CodeRevisionInvalid, "A revision is not one commit a person may name."},
	{CodeRoleRouted, "An agent named for a runner is already sent to another route (another runner, or a provider) in the machine file."},
	{CodeRoleUnknown, "A role named is not a reviewer."},
	{CodeRouteInvalid, "A route given, or the routing it resolves to, breaks the route grammar or names what is not configured."},
	{CodeRoutingInvalid, "A routing file's row breaks the table's rules."},
	{CodeRulesDomainInvalid, "A rules domain's name is not one a domain may take."},
	{CodeRulesDomainUnknown, "No rules domain in force has that name."},
	{CodeRulesFileInvalid, "The rules files cannot be read together (a name or alias taken twice)."},
	{CodeRulesPromptInvalid, "A prompt given to rules match is not text abcd reads."},
	{CodeRulesPromptUnreadable, "The rules match verb could not read the prompt from its standard input."},
	{CodeRunActive, "A spec already has an unfinished run."},
	{CodeRunAmbiguous, "Several runs are unfinished and none was named."},
	{CodeRunIDContention, "No free run id was found after repeated tries."},
	{CodeRunInvalid, "A run id does not have a run id's shape."},
	{CodeRunLocked, "Another abcd holds the run's lock."},
	{CodeRunMismatch, "A run is named with a spec it is not a run of."},
	{CodeRunPathInvalid, "A path is not under the runs' folder."},
	{CodeRunStateInvalid, "A run's state file is not one abcd wrote."},
	{CodeRunStateTooLarge, "Recording would grow a run's state past its bound."},
	{CodeRunUnknown, "A run named is not a run in this repository."},
	{CodeRunnerDrifted, "A runner's CLI no longer passes the checks it passed when connected (its version, a flag); no lane was started."},
	{CodeRunnerExists, "A runner of that name is already configured."},
	{CodeRunnerLimit, "The machine already configures the most runners it may (16)."},
	{CodeRunnerNameInvalid, "A runner's name is malformed or reserved."},
	{CodeRunnerNeedsDoD, "The implementer is sent to a runner, but the run keeps no definition of done (build.dod) to prove the runner's work by."},
	{CodeRunnerUnavailable, "This build of abcd drives no runner."},
	{CodeRunnerUnknown, "A runner named is not one this machine configures."},
	{CodeRunnerUnsupported, "The CLI is one abcd cannot drive: it has no terminal event, or abcd has not been proven against it."},
	{CodeRunnerUnverified, "A runner's CLI failed a check on connect (its executable, version, flags or the proving call); nothing was written."},
	{CodeSandboxInvalid, "A runner's sandbox setting is neither on nor off."},
	{CodeSchemaNameInvalid, "A schema name does not have a schema name's shape."},
	{CodeSchemaUnknown, "No published schema has that name."},
	{CodeSeverityUnknown, "A severity named is not one of the record's."},
	{CodeSourceEmpty, "An issue's source is empty."},
	{CodeSourceInvalid, "An issue's source holds what one line of plain text may not."},
	{CodeSourceTooLong, "An issue's source is longer than 200 characters."},
	{CodeSpecClosed, "A spec is closed."},
	{CodeSpecNoSteps, "A spec has no steps, so a run would have no lanes."},
	{CodeSpecOpen, "An intent's spec is still open."},
	{CodeSpecTitleTaken, "An open spec of the intent already has that title."},
	{CodeSymlinkRefused, "A path abcd reads or writes is a symbolic link."},
	{CodeTextEmpty, "A capture's text is empty."},
	{CodeTextInvalid, "A capture's text is too long or holds what a record's body may not."},
	{CodeTierModelInvalid, "A tier's model is not written tier=model."},
	{CodeTierTwice, "A tier's model was given twice."},
	{CodeTitleEmpty, "A title is empty."},
	{CodeTitleInvalid, "A title holds what one line of plain text may not (a control, bidirectional-control or zero-width character)."},
	{CodeTitleTooLong, "A title is longer than 200 characters."},
	{CodeTooManyChanges, "Git lists more changed paths than abcd reads."},
	{CodeTransitionRefused, "A record already stands where the command would move it."},
	{CodeUsage, "A command line abcd does not take: an unknown command, flag or argument."},
	{CodeWhyEmpty, "The reason an issue is closed is empty."},
	{CodeWhyInvalid, "The reason an issue is closed is too long or holds what a record's body may not."},
	{CodeWorktreeFailed, "Git could not make or check out a lane's worktree."},
}
