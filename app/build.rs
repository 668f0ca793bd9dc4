//! Generates the `i18n` module (typed keys, the `Locale` enum, `t!`) from `locales/*.json`.

use std::{error::Error, path::PathBuf};

use leptos_i18n_build::{Config, ParseOptions, TranslationsInfos};

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let config = Config::new("nl-NL")?
        .add_locale("en-GB")?
        .add_locale("de-DE")?
        .add_locale("fr-FR")?
        // `td_string!` renders interpolated texts as strings (attributes, postMessage, titles).
        .parse_options(ParseOptions::default().interpolate_display(true));
    let translations = TranslationsInfos::parse(config)?;
    translations.emit_diagnostics();
    translations.rerun_if_locales_changed();
    translations.generate_i18n_module(out.join("i18n"))?;
    Ok(())
}
