//! A page's `sh` blocks run as a newcomer pasting them would: in order, in one bash, in the
//! root of the repository, against a test server; and what they print checked against what the
//! page shows. docs/integration.md (`docs_integration`) and docs/operator-first-start.md
//! (`docs_operator_first_start`) are kept true this way.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of `.ci/docs-tools`' installs (`BOXOFFICE_TOOLS_DIR`, else
/// `~/.cache/boxoffice-tools`).
pub fn tools_dir() -> PathBuf {
    std::env::var_os("BOXOFFICE_TOOLS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/boxoffice-tools")))
        .unwrap_or_default()
}

/// The Python that has the `standardwebhooks` library (`BOXOFFICE_DOCS_PYTHON`, else the venv
/// `.ci/docs-tools` makes).
pub fn docs_python() -> PathBuf {
    std::env::var_os("BOXOFFICE_DOCS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| tools_dir().join("docs-venv/bin/python"))
}

/// Whether every program the steps of `page` call is installed. Without one the steps are not
/// run, which is said on stderr; in CI (`CI=true`) that is a failure.
pub fn tools_present(page: &str, tools: &[&str]) -> bool {
    for tool in tools {
        if Command::new(tool).arg("--version").output().is_err() {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI runs {page}'s steps: {tool} is needed (.ci/docs-tools)"
            );
            eprintln!("{page}'s steps not run: no {tool}");
            return false;
        }
    }
    true
}

/// The `sh` blocks of `doc`, in order, as one script, with each `(from, to)` of `replacements`
/// applied (the page's server address and secrets become the test server's). A replacement
/// that matches nothing fails: the page no longer says what the test expects it to.
pub fn script_of(doc: &str, replacements: &[(&str, String)]) -> String {
    let mut script = String::new();
    for block in doc.split("```sh\n").skip(1) {
        let (block, _) = block.split_once("```").expect("a closed sh block");
        script.push_str(block);
    }
    for (from, to) in replacements {
        assert!(
            script.contains(from),
            "the page's steps no longer set {from}"
        );
        script = script.replace(from, to);
    }
    script
}

/// Runs `script` with bash in the repository's root, with `path` ahead of `PATH`; returns
/// what it printed. It must write nothing to stderr (a failed step does). Programs the steps
/// left running in the background are stopped when the script ends, however it ends.
pub async fn run(script: String, path: Option<PathBuf>) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned();
    let script = format!("trap 'kill $(jobs -p) 2>/dev/null' EXIT\nset -u\n{script}");
    let output = tokio::task::spawn_blocking(move || {
        let mut command = Command::new("bash");
        command.arg("-c").arg(script).current_dir(root);
        if let Some(dir) = path {
            let rest = std::env::var_os("PATH").unwrap_or_default();
            let joined =
                std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&rest)))
                    .unwrap();
            command.env("PATH", joined);
        }
        command.output().unwrap()
    })
    .await
    .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        errors.trim().is_empty(),
        "the steps wrote errors: {errors}\nand printed:\n{printed}"
    );
    printed
}

/// Asserts that `printed` holds each of `expected`, in this order.
#[track_caller]
pub fn assert_prints_in_order(page: &str, printed: &str, expected: &[&str]) {
    let mut rest = printed;
    for expected in expected {
        let at = rest.find(expected).unwrap_or_else(|| {
            panic!("{page}'s steps did not print {expected:?} where the page shows it; they printed:\n{printed}")
        });
        rest = &rest[at + expected.len()..];
    }
}

/// The problem types `printed` shows, in order.
pub fn problems_in(printed: &str) -> Vec<&str> {
    printed
        .match_indices("urn:boxoffice:error:")
        .map(|(at, _)| printed[at..].split('"').next().unwrap())
        .collect()
}

/// A port no one listens on now, for a program the steps start.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
