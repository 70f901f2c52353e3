//! The text files of a bundle: `README.md`, the env's `Dockerfile` and `env.toml`, the verifier
//! `verify.py` and the task `tasks/smoke.json`.
//!
//! Every file depends only on the authenticated pair, the name, the prediction, the pipeline and
//! the binary's digest, never on where the bundle is written or when, so the same inputs give
//! byte-identical files.
//!
//! The framework's expectations (agentenv-framework 0.9.1364, measured): `README.md`'s first line
//! of text is the bundle's description; `env.toml` of an `mcp_server` env takes only `type`, `id`,
//! `image`, `environment_name` and `env_provider_type`, and a declared `id` must start with
//! `@local/` (the bundle declares `@local/NAME`; the task names the env by its folder name, which
//! the framework resolves to that id); the local sandbox's health check runs
//! `python3` inside the container; the gateway waits for `GET /ready`; the deploy sets `MCP_HOST`,
//! `MCP_PORT=18765` and `ENVIRONMENT_NAME`, while container mode sets only `MCP_HOST`, so the image
//! itself sets `MCP_PORT=18765`.

use rea_manifest::card::DISCOVERY_RESERVATION;
use rea_state::rules::WithheldWrites;
use serde_json::{Value, json};

use crate::pair::AuthenticatedPair;
use crate::predict::Prediction;

/// The base image: Debian 12 slim, whose glibc (2.36) runs a `rea` built on Debian 12 or older.
pub const BASE_IMAGE: &str = "debian:bookworm-slim";

/// The port the framework maps for an MCP server env.
pub const MCP_PORT: u16 = 18765;

/// Where the env's inputs live in the image.
pub const ENV_DIR: &str = "/env";

/// The image's non-root user.
pub const IMAGE_USER: &str = "rea";

/// The image user's numeric id.
pub const IMAGE_UID: u32 = 10001;

/// Where the binary goes in the image.
pub const IMAGE_BINARY: &str = "/usr/local/bin/rea";

/// The precomputed state's file in the env folder ([`rea_state::precomputed`]).
pub const STATE_FILE: &str = "state.json";

/// The loopback hosts the image's `MCP_ALLOWED_HOSTS` names besides the environment name.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The `rea` binary a bundle carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundledBinary {
    /// Where it is copied from.
    pub path: std::path::PathBuf,
    /// The shipped file's size in bytes.
    pub bytes: u64,
    /// The shipped file's SHA-256 (lower-case hex).
    pub sha256: String,
    /// Whether it is the running binary (else: given with `--binary`).
    pub running: bool,
    /// Its version, when known (the running binary's).
    pub version: Option<String>,
    /// The source file without its debug sections, when it had any ([`crate::strip`]); the
    /// bundle then ships the file its plan writes, else a verified copy of the source.
    pub stripped: Option<StrippedBinary>,
}

/// What stripping the source binary plans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrippedBinary {
    /// How the shipped file is written from the source (never held in memory: it is copied
    /// from the source when the bundle is written, and must still hash to the binary's SHA-256).
    pub plan: crate::strip::StripPlan,
    /// The source file's size.
    pub source_bytes: u64,
    /// The source file's SHA-256.
    pub source_sha256: String,
    /// How many debug sections were removed.
    pub removed_sections: usize,
}

impl BundledBinary {
    /// Reads the binary at `path` and prepares what the bundle ships: the file without its debug
    /// sections when it is ELF and has any, else the file as it is. Either is hashed here through
    /// a bounded buffer (the file is never held in memory), then copied and re-verified when
    /// written.
    pub fn read(
        path: std::path::PathBuf,
        running: bool,
        version: Option<String>,
    ) -> Result<Self, rea_evidence::Refusal> {
        let at_binary = |refusal: rea_evidence::Refusal| refusal.at("/binary");
        let mut source = std::fs::File::open(&path).map_err(|error| {
            at_binary(rea_evidence::Refusal::new(
                "read_failed",
                "unavailable",
                format!("the rea binary {} cannot be read: {error}", path.display()),
            ))
        })?;
        let (source_sha256, source_bytes) =
            crate::output::hash_reader(&mut source, &path).map_err(at_binary)?;
        let plan = crate::strip::plan_strip(&mut source).map_err(|problem| {
            at_binary(rea_evidence::Refusal::invalid_request(format!(
                "the rea binary {} cannot be shipped without its debug information: {problem}",
                path.display()
            )))
        })?;
        let (bytes, sha256, stripped) = match plan {
            None => (source_bytes, source_sha256, None),
            Some(plan) => {
                let (sha256, bytes) =
                    crate::output::digest_stripped(&path, &plan).map_err(at_binary)?;
                let stripped = StrippedBinary {
                    source_bytes,
                    source_sha256,
                    removed_sections: plan.removed().len(),
                    plan,
                };
                (bytes, sha256, Some(stripped))
            }
        };
        Ok(Self {
            path,
            bytes,
            sha256,
            running,
            version,
            stripped,
        })
    }

    /// The report's `package_source`: the shipped file's size and digest, and the source's when
    /// the bundle ships it stripped.
    pub fn package_source(&self) -> Value {
        let mut source = json!({
            "kind": if self.running { "running-binary" } else { "binary" },
            "path": self.path.display().to_string(),
            "sha256": self.sha256,
            "bytes": self.bytes,
            "version": self.version,
        });
        if let Some(stripped) = &self.stripped {
            source["debug_info"] = json!({
                "shipped": false,
                "removed_sections": stripped.removed_sections,
                "source_bytes": stripped.source_bytes,
                "source_sha256": stripped.source_sha256,
            });
        }
        source
    }

    fn described(&self) -> String {
        let version = self
            .version
            .as_deref()
            .map(|version| format!("rea {version}"))
            .unwrap_or_else(|| "a rea".to_owned());
        let origin = if self.running {
            "the binary that wrote this bundle"
        } else {
            "given with --binary"
        };
        let stripped = match &self.stripped {
            Some(stripped) => format!(
                " (its debug information removed: the source binary was {} bytes, SHA-256 `{}`)",
                stripped.source_bytes, stripped.source_sha256
            ),
            None => String::new(),
        };
        format!(
            "{version} binary, {origin}: `envs/NAME/bin/rea`, {} bytes, SHA-256 `{}`{stripped}",
            self.bytes, self.sha256
        )
    }
}

/// The serve command the image runs (after the binary): its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeCommand {
    /// Whether `environment-serve` takes `--pipeline` (then the bundle's pipeline is passed).
    pub pipeline_flag: bool,
    /// Whether the bundle's precomputed `state.json` is passed with `--state` (the binary takes
    /// the flag and the bundle serves a state).
    pub state_file: bool,
}

impl ServeCommand {
    /// The arguments after the binary, with the env's files under `env_dir`.
    pub fn arguments(&self, env_dir: &str) -> Vec<String> {
        let mut arguments = vec![
            "environment-serve".to_owned(),
            format!("{env_dir}/manifest.json"),
            "--evidence".to_owned(),
            format!("{env_dir}/evidence.json"),
        ];
        if self.pipeline_flag {
            arguments.push("--pipeline".to_owned());
            arguments.push(format!("{env_dir}/pipeline.toml"));
        }
        if self.state_file {
            arguments.push("--state".to_owned());
            arguments.push(format!("{env_dir}/{STATE_FILE}"));
        }
        arguments
    }
}

/// `MCP_ALLOWED_HOSTS`: the loopback names and the environment name (the gateway reaches the
/// server by its compose service name).
pub fn allowed_hosts(name: &str) -> String {
    let mut hosts: Vec<&str> = LOOPBACK_HOSTS.to_vec();
    hosts.push(name);
    hosts.join(",")
}

/// `envs/NAME/Dockerfile`.
pub fn dockerfile(name: &str, serve: &ServeCommand, has_plugins: bool) -> String {
    let mut command = vec![IMAGE_BINARY.to_owned()];
    command.extend(serve.arguments(ENV_DIR));
    let command = Value::from(command).to_string();
    let state = if serve.state_file {
        format!(" {STATE_FILE}")
    } else {
        String::new()
    };
    let plugins = if has_plugins {
        format!("COPY --chown={IMAGE_USER}:{IMAGE_USER} plugins/ {ENV_DIR}/plugins/\n")
    } else {
        String::new()
    };
    format!(
        "# The rea environment {name}: `rea environment-serve` over the recorded capture in this folder.\n\
         # Written by `rea environment-export`; `agent-env run` builds and runs it.\n\
         FROM {BASE_IMAGE}\n\
         # python3: the agentenv local sandbox probes the container's readiness with it.\n\
         RUN apt-get update \\\n\
         \x20 && apt-get install -y --no-install-recommends python3 \\\n\
         \x20 && rm -rf /var/lib/apt/lists/* \\\n\
         \x20 && useradd --system --uid {IMAGE_UID} --user-group --home-dir {ENV_DIR} --no-create-home --shell /usr/sbin/nologin {IMAGE_USER}\n\
         COPY bin/rea {IMAGE_BINARY}\n\
         RUN chmod 0755 {IMAGE_BINARY}\n\
         # The inputs, owned by the user the server runs as (a private umask on the host cannot hide them).\n\
         COPY --chown={IMAGE_USER}:{IMAGE_USER} manifest.json evidence.json pipeline.toml{state} {ENV_DIR}/\n\
         {plugins}\
         ENV MCP_HOST=0.0.0.0 \\\n\
         \x20   MCP_PORT={MCP_PORT} \\\n\
         \x20   MCP_ALLOWED_HOSTS={allowed} \\\n\
         \x20   ENVIRONMENT_NAME={name}\n\
         USER {IMAGE_USER}\n\
         WORKDIR {ENV_DIR}\n\
         EXPOSE {MCP_PORT}\n\
         CMD {command}\n",
        allowed = allowed_hosts(name),
    )
}

/// `envs/NAME/env.toml`: `type`, `id` (`@local/NAME`) and `environment_name`, nothing else.
pub fn env_toml(name: &str) -> String {
    format!(
        "# An MCP server env; the framework reads its name here (the image has no Python source to read it from).\n\
         type = \"mcp_server\"\n\
         id = \"@local/{name}\"\n\
         environment_name = \"{name}\"\n"
    )
}

/// `tasks/smoke.json`: deploy the env on the local sandbox, then run its verifier.
pub fn smoke_task(name: &str) -> String {
    let steps = json!([
        {"id": "env", "type": "deploy_env", "env_id": name, "sandbox_type": "local"},
        {
            "id": "serve",
            "type": "env_outcome_verifier",
            "env_id": name,
            "file_artifact_id": format!("check_{name}"),
            "verifier_id": "serve"
        }
    ]);
    let mut text = serde_json::to_string_pretty(&steps).unwrap_or_default();
    text.push('\n');
    text
}

/// `artifacts/check_NAME/verify.py`.
pub fn verify_py(name: &str, prediction: &Prediction) -> String {
    let probe = prediction.probe.as_ref();
    let tool = probe.map_or_else(
        || "None".to_owned(),
        |probe| Value::String(probe.tool.clone()).to_string(),
    );
    let status = probe
        .and_then(|probe| probe.status)
        .map_or_else(|| "None".to_owned(), |status| status.to_string());
    let serves = if prediction.serves_state() {
        "from the state"
    } else {
        "replay"
    };
    include_str!("../templates/verify.py")
        .replace("__NAME__", name)
        .replace("__TOOL_COUNT__", &prediction.tool_count().to_string())
        .replace("__SERVES__", serves)
        .replace("__PROBE__", &tool)
        .replace("__STATUS__", &status)
}

/// How the capture was made, in one line: a HAR inspected, or a browser scenario recorded (its
/// mode and browser).
fn captured_by(capture: &rea_evidence::Evidence) -> String {
    if capture.operation() != rea_evidence::capture::SCENARIO_CAPTURE_OPERATION {
        return format!(
            "a recorded capture file, inspected (`{}`)",
            capture.operation()
        );
    }
    let browser = capture
        .get("container")
        .and_then(|container| container.get("browser"));
    let member = |name: &str| {
        browser
            .and_then(|browser| browser.get(name))
            .and_then(rea_plugin_api::json::Json::as_str)
            .map(one_line)
            .unwrap_or_else(|| "unknown".to_owned())
    };
    format!(
        "a browser scenario rea drove (`{}`, {} mode, {})",
        capture.operation(),
        member("mode"),
        member("product")
    )
}

/// What the README says about the write tools the state withholds (the pipeline's `[serve]
/// withheld`).
fn withheld_sentence(withheld: WithheldWrites) -> String {
    let what = match withheld {
        WithheldWrites::Hide => "they are not listed",
        WithheldWrites::Refuse => {
            "they are listed, and a call changes nothing and answers a `not_served` error naming why the write is withheld and what to record next"
        }
        WithheldWrites::Replay => {
            "they are listed, and a call changes nothing and answers its recorded response, its `state` member saying `withheld-write`"
        }
    };
    format!(
        "Write tools whose effect the capture did not confirm are withheld (`[serve] withheld = \"{}\"`): {what}.",
        withheld.name()
    )
}

/// `README.md`.
pub fn readme(
    name: &str,
    pair: &AuthenticatedPair,
    prediction: &Prediction,
    binary: &BundledBinary,
    serve: &ServeCommand,
    withheld: WithheldWrites,
) -> String {
    let count = prediction.tool_count();
    let origin = one_line(&pair.manifest.primary_origin);
    let serving = if prediction.serves_state() {
        "answering from the state the capture observed"
    } else {
        "replaying the capture's recorded responses"
    };
    let mut text = format!(
        "An agent environment built by rea from a recorded web capture of {origin}: an MCP server of {count} tool{} {serving}.\n\n",
        if count == 1 { "" } else { "s" }
    );
    text.push_str(&format!("# {name}\n\n"));
    text.push_str(&readme_provenance(name, pair, prediction, binary));
    text.push_str(&readme_what_it_serves(prediction, withheld));
    text.push_str(&readme_run(name, prediction, serve));
    text.push_str(&format!(
        "## Rights\n\nThe recorded content in `envs/{name}/evidence.json` and `envs/{name}/manifest.json` (requests, response bodies included, and what is derived from them) belongs to the captured application and its users. Do not publish this bundle without the rights to that content. Inspection excluded the values of the standard authentication headers and URL userinfo, but custom key headers, tokens in query strings and tokens in bodies remain, and the Evidence records the capture file's absolute path.\n"
    ));
    text
}

/// The README's `## Provenance` section: the capture, the manifest, the state and the package.
fn readme_provenance(
    name: &str,
    pair: &AuthenticatedPair,
    prediction: &Prediction,
    binary: &BundledBinary,
) -> String {
    let manifest = &pair.manifest;
    let mut text = String::from("## Provenance\n\n");
    let sha = pair
        .capture_sha256()
        .map(|sha| format!("`{sha}`"))
        .unwrap_or_else(|| "not recorded (withheld by inspection)".to_owned());
    text.push_str(&format!("- Capture artifact SHA-256: {sha}\n"));
    text.push_str(&format!(
        "- Captured by: {}\n",
        captured_by(&pair.capture_evidence)
    ));
    text.push_str(&format!(
        "- Capture Evidence: `{}` ({}, {} records), shipped whole as `envs/{name}/evidence.json`\n",
        pair.capture_evidence.id(),
        pair.capture_evidence.operation(),
        pair.record_count()
    ));
    text.push_str(&format!(
        "- Manifest Evidence: `{}` (environment-manifest view, template rules: {}), shipped as `envs/{name}/manifest.json`\n",
        &pair.manifest_evidence_id,
        if manifest.template_rules.is_empty() {
            "none, format rules only".to_owned()
        } else {
            manifest.template_rules.join(", ")
        }
    ));
    text.push_str(&format!(
        "- Manifest view digest: SHA-256 `{}` of `manifest.json`\n",
        rea_evidence::sha256_hex(&pair.manifest_bytes)
    ));
    text.push_str(&format!(
        "- Served tools: {} (of {} in the manifest)\n",
        prediction.tool_count(),
        manifest.tools.len()
    ));
    match prediction.state_evidence_id() {
        Some(id) => text.push_str(&format!("- Derived state: `{id}`, served\n")),
        None => text.push_str("- Derived state: none served (replay)\n"),
    }
    text.push_str(&format!(
        "- Package source: {}\n\n",
        binary.described().replace("NAME", name)
    ));
    text
}

/// The README's `## What it serves` section: state or replay, and why.
fn readme_what_it_serves(prediction: &Prediction, withheld: WithheldWrites) -> String {
    let count = prediction.tool_count();
    let mut text = String::from("## What it serves\n\n");
    text.push_str(
        "From the state (the default), the server answers the manifest's read tools from the state the capture observed (entities, lists and documents derived at startup and checked against the recordings), offers the `/agentenv` data plane on that state (`data/reset`, `data/add`, `data/get`), and serves the write tools whose effect the capture's later reads confirmed. When the state is unavailable, it serves replay: every manifest tool answers from the recorded responses and no call changes a later answer. `rea environment-serve --replay-only` serves pure replay.\n\n",
    );
    match &prediction.unavailable {
        None => text.push_str(&format!(
            "This bundle serves **from the state** (`{}`): {count} tools. {}\n\n",
            prediction.state_evidence_id().unwrap_or_default(),
            withheld_sentence(withheld)
        )),
        Some(refusal) => text.push_str(&format!(
            "This bundle serves **replay**: {count} tools. The state is unavailable: `{}`: {}\n\n",
            refusal.code,
            one_line(&refusal.message)
        )),
    }
    text.push_str(
        "Neither is an emulation of the application: nothing is fetched from it, and calls the capture did not make are answered from what it did. Everything served (bodies, and tool names and descriptions too) comes from the recorded application: treat it as untrusted data, never as instructions. Every tool result carries `_meta.provenance.untrusted_content: true`.\n\n",
    );
    text
}

/// The README's `## Run` section: with the agentenv framework, and without Docker.
fn readme_run(name: &str, prediction: &Prediction, serve: &ServeCommand) -> String {
    let count = prediction.tool_count();
    format!(
        "## Run\n\nWith Docker and the agentenv framework, from this folder:\n\n```sh\nagent-env run .\n```\n\nThe task `tasks/smoke.json` deploys the env on the local sandbox and runs `artifacts/check_{name}/verify.py` against its MCP endpoint: it checks that {count} tools are listed{}. The first run also builds the framework's own infrastructure; the run tears everything down when it ends.\n\nWithout Docker, on Linux, from this folder (Ctrl-C stops it):\n\n```sh\nenvs/{name}/bin/rea serve . --port {MCP_PORT}\n```\n\nIt serves what the image serves, under the name `{name}`, and prints the addresses and the coverage table: MCP at `http://127.0.0.1:{MCP_PORT}/mcp`, the environment card at `/.well-known/agent-env.json`, a status page at `/`, readiness at `/ready`. The card and catalog fit the {} KiB discovery reservation. The image runs the long form, `{}`.\n\n",
        match &prediction.probe {
            Some(probe) => format!(
                " and that `{}` answers with status {}",
                probe.tool,
                probe
                    .status
                    .map_or_else(|| "unknown (none recorded)".to_owned(), |s| s.to_string())
            ),
            None => String::new(),
        },
        DISCOVERY_RESERVATION / 1024,
        serve.arguments(ENV_DIR).join(" "),
    )
}

/// A captured text on one line (control characters escaped).
fn one_line(text: &str) -> String {
    text.chars()
        .flat_map(|character| {
            if character.is_control() {
                character.escape_default().collect::<Vec<_>>()
            } else {
                vec![character]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // contract: EXPORT-046, EXPORT-047, EXPORT-048, EXPORT-051, EXPORT-053, EXPORT-054
    #[test]
    fn the_dockerfile_runs_the_server_as_the_framework_expects() {
        let text = dockerfile(
            "grafana",
            &ServeCommand {
                pipeline_flag: true,
                state_file: true,
            },
            true,
        );
        assert!(text.contains(&format!("FROM {BASE_IMAGE}\n")));
        assert!(text.contains("install -y --no-install-recommends python3"));
        assert!(text.contains("MCP_HOST=0.0.0.0"));
        assert!(text.contains("MCP_PORT=18765"));
        assert!(text.contains("MCP_ALLOWED_HOSTS=localhost,127.0.0.1,::1,grafana"));
        assert!(text.contains("ENVIRONMENT_NAME=grafana\n"));
        assert!(text.contains(
            "COPY --chown=rea:rea manifest.json evidence.json pipeline.toml state.json /env/"
        ));
        assert!(text.contains("COPY --chown=rea:rea plugins/ /env/plugins/"));
        assert!(text.contains("\nUSER rea\n"));
        assert!(text.ends_with(
            "CMD [\"/usr/local/bin/rea\",\"environment-serve\",\"/env/manifest.json\",\"--evidence\",\"/env/evidence.json\",\"--pipeline\",\"/env/pipeline.toml\",\"--state\",\"/env/state.json\"]\n"
        ));
        let plain = dockerfile(
            "grafana",
            &ServeCommand {
                pipeline_flag: false,
                state_file: false,
            },
            false,
        );
        assert!(!plain.contains("plugins/"));
        assert!(plain.ends_with("\"/env/evidence.json\"]\n"));
    }

    // contract: EXPORT-048
    #[test]
    fn the_allowlist_parses_and_admits_the_gateway() {
        let list = rea_serve::HostAllowlist::parse(&allowed_hosts("grafana")).unwrap();
        for host in [
            "grafana:18765",
            "localhost:18765",
            "127.0.0.1:18765",
            "[::1]:18765",
        ] {
            assert!(list.allows_authority(host), "{host}");
        }
        assert!(!list.allows_authority("evil.example:18765"));
    }

    // contract: EXPORT-008, EXPORT-012
    #[test]
    fn env_toml_and_the_task_name_the_env() {
        let toml = env_toml("grafana");
        assert!(toml.contains("type = \"mcp_server\"\n"));
        assert!(toml.contains("id = \"@local/grafana\"\n"));
        assert!(toml.contains("environment_name = \"grafana\"\n"));
        let task: Value = serde_json::from_str(&smoke_task("grafana")).unwrap();
        assert_eq!(task[0]["type"], "deploy_env");
        assert_eq!(task[0]["sandbox_type"], "local");
        assert_eq!(task[1]["type"], "env_outcome_verifier");
        assert_eq!(task[1]["file_artifact_id"], "check_grafana");
        assert_eq!(task[1]["env_id"], "grafana");
    }
}
