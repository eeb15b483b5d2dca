enable f16;

@group(0) @binding(0) 
var<storage> a: array<f16>;
@group(0) @binding(1) 
var<storage> b: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f16>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    let x = select(0h, _e30, _e25);
    let _e33 = (_e15 < 64u);
    let _e38 = b[select(0u, _e15, _e33)];
    let y = select(0f, _e38, _e33);
    let _e44 = ((_e15 * 5u) + 0u);
    let _e47 = (_e44 < 320u);
    if _e47 {
        out[select(0u, _e44, _e47)] = (x + 0.5h);
    }
    let _e55 = ((_e15 * 5u) + 1u);
    let _e58 = (_e55 < 320u);
    if _e58 {
        out[select(0u, _e55, _e58)] = (x / f16(y));
    }
    let _e66 = ((_e15 * 5u) + 2u);
    let _e72 = (_e66 < 320u);
    if _e72 {
        out[select(0u, _e66, _e72)] = f16(i32(clamp(x, -65504h, 65504h)));
    }
    let _e80 = ((_e15 * 5u) + 3u);
    let _e86 = (_e80 < 320u);
    if _e86 {
        out[select(0u, _e80, _e86)] = f16(u64(clamp(x, 0h, 65504h)));
    }
    let _e94 = ((_e15 * 5u) + 4u);
    let _e101 = (_e94 < 320u);
    if _e101 {
        out[select(0u, _e94, _e101)] = select(x, f16(bitcast<f32>(2139095040u)), (x < f16(y)));
    }
}
