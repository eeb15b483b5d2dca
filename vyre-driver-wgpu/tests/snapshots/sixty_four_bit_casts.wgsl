@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u64>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = (_e15 < 64u);
    let _e29 = a[select(0u, _e15, _e24)];
    let x = select(0u, _e29, _e24);
    let _e35 = ((_e15 * 5u) + 0u);
    let _e44 = (_e35 < 320u);
    if _e44 {
        out[select(0u, _e35, _e44)] = bitcast<u64>(((bitcast<i64>(u64(bitcast<u32>(i32(x)))) << 32u) >> 32u));
    }
    let _e52 = ((_e15 * 5u) + 1u);
    let _e54 = (_e52 < 320u);
    if _e54 {
        out[select(0u, _e52, _e54)] = u64(x);
    }
    let _e62 = ((_e15 * 5u) + 2u);
    let _e68 = (_e62 < 320u);
    if _e68 {
        out[select(0u, _e62, _e68)] = u64(clamp(f32(x), 0f, 18446743000000000000f));
    }
    let _e76 = ((_e15 * 5u) + 3u);
    let _e83 = (_e76 < 320u);
    if _e83 {
        out[select(0u, _e76, _e83)] = bitcast<u64>(i64(clamp(f32(x), -9223372000000000000f, 9223371500000000000f)));
    }
    let _e91 = ((_e15 * 5u) + 4u);
    let _e97 = (_e91 < 320u);
    if _e97 {
        out[select(0u, _e91, _e97)] = u64(u32((18446744073709551615lu & 4294967295lu)));
    }
}
