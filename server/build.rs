//! `sqlx::migrate!` embeds the migrations at compile time; without this a new migration file
//! would not rebuild the server, which would then run without it.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
