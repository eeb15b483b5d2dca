enable f16;

@group(0) @binding(0) 
var<storage> a: array<f16>;
@group(0) @binding(1) 
var<storage> b: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f16>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 64u);
    let _e15 = a[select(0u, _e6, _e10)];
    let x = select(0h, _e15, _e10);
    let _e18 = (_e6 < 64u);
    let _e23 = b[select(0u, _e6, _e18)];
    let y = select(0f, _e23, _e18);
    let _e29 = ((_e6 * 5u) + 0u);
    let _e32 = (_e29 < 320u);
    if _e32 {
        out[select(0u, _e29, _e32)] = (x + 0.5h);
    }
    let _e40 = ((_e6 * 5u) + 1u);
    let _e43 = (_e40 < 320u);
    if _e43 {
        out[select(0u, _e40, _e43)] = (x / f16(y));
    }
    let _e51 = ((_e6 * 5u) + 2u);
    let _e57 = (_e51 < 320u);
    if _e57 {
        out[select(0u, _e51, _e57)] = f16(i32(clamp(x, -65504h, 65504h)));
    }
    let _e65 = ((_e6 * 5u) + 3u);
    let _e71 = (_e65 < 320u);
    if _e71 {
        out[select(0u, _e65, _e71)] = f16(u64(clamp(x, 0h, 65504h)));
    }
    let _e79 = ((_e6 * 5u) + 4u);
    let _e86 = (_e79 < 320u);
    if _e86 {
        out[select(0u, _e79, _e86)] = select(x, f16(bitcast<f32>(2139095040u)), (x < f16(y)));
    }
}
