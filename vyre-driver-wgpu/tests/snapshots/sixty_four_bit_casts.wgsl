@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u64>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e9 = (_e6 < 64u);
    let _e14 = a[select(0u, _e6, _e9)];
    let x = select(0u, _e14, _e9);
    let _e20 = ((_e6 * 5u) + 0u);
    let _e29 = (_e20 < 320u);
    if _e29 {
        out[select(0u, _e20, _e29)] = bitcast<u64>(((bitcast<i64>(u64(bitcast<u32>(i32(x)))) << 32u) >> 32u));
    }
    let _e37 = ((_e6 * 5u) + 1u);
    let _e39 = (_e37 < 320u);
    if _e39 {
        out[select(0u, _e37, _e39)] = u64(x);
    }
    let _e47 = ((_e6 * 5u) + 2u);
    let _e53 = (_e47 < 320u);
    if _e53 {
        out[select(0u, _e47, _e53)] = u64(clamp(f32(x), 0f, 18446743000000000000f));
    }
    let _e61 = ((_e6 * 5u) + 3u);
    let _e68 = (_e61 < 320u);
    if _e68 {
        out[select(0u, _e61, _e68)] = bitcast<u64>(i64(clamp(f32(x), -9223372000000000000f, 9223371500000000000f)));
    }
    let _e76 = ((_e6 * 5u) + 4u);
    let _e82 = (_e76 < 320u);
    if _e82 {
        out[select(0u, _e76, _e82)] = u64(u32((18446744073709551615lu & 4294967295lu)));
    }
}
