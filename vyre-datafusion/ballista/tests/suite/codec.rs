//! The codecs on their own, without a cluster: what an executor or the scheduler does with a
//! function's bytes, including bytes that are not a program.

use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use vyre::ir::{BufferDecl, DataType, Expr, Node, Program};
use vyre_ballista::{VyreLogicalCodec, VyrePhysicalCodec};

fn inc() -> Program {
    Program::new(
        vec![
            BufferDecl::read("x", 0, DataType::I64),
            BufferDecl::output("y", 1, DataType::I64).with_count(1),
        ],
        [64, 1, 1],
        vec![Node::store(
            "y",
            Expr::gid_x(),
            Expr::load("x", Expr::gid_x()) + 1i64,
        )],
    )
}

#[test]
fn a_function_round_trips_through_both_codecs() {
    let mut bytes = b"vyre-udf".to_vec();
    bytes.extend_from_slice(&inc().to_bytes());
    let physical =
        VyrePhysicalCodec::with_backend(std::sync::Arc::new(vyre::ReferenceBackend::new()));
    let udf = physical.try_decode_udf("inc", &bytes).expect("decoded");
    let mut again = Vec::new();
    physical.try_encode_udf(&udf, &mut again).expect("encoded");
    assert_eq!(again, bytes);
    let logical = VyreLogicalCodec::new();
    let udf = logical.try_decode_udf("inc", &bytes).expect("decoded");
    let mut again = Vec::new();
    logical.try_encode_udf(&udf, &mut again).expect("encoded");
    assert_eq!(again, bytes);
}

/// Ballista reports a plan that does not decode by the error's `Debug` form; it must still read
/// as the function's message with its `Fix:`.
#[test]
fn corrupt_bytes_give_a_readable_error_even_in_debug_form() {
    let physical = VyrePhysicalCodec::new();
    let logical = VyreLogicalCodec::new();
    for error in [
        physical.try_decode_udf("inc", b"vyre-udf garbage").err(),
        logical.try_decode_udf("inc", b"not even the magic").err(),
    ] {
        let error = error.expect("an error");
        let debug = format!("{error:?}");
        assert!(debug.contains("vyre function `inc`"), "{debug}");
        assert!(debug.contains("Fix: "), "{debug}");
        assert!(!debug.contains("Malformed {"), "{debug}");
    }
}
