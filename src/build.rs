//! Tells cargo to rebuild when the embedded folders change: `include_dir!` cannot
//! track them itself on stable Rust, and a stale embedded corpus would be a silent bug.
fn main() {
    for dir in ["knowledge", "decision-trees", "assets"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}
