enable f16;

@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(1) 
var<storage, read_write> out: array<i64>;
@group(0) @binding(2) 
var<storage, read_write> h: array<f16>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e27 = vyre_params[7u];
    let _e28 = (_e15 < 256u);
    let _e33 = a[select(0u, _e15, _e28)];
    let v = select(0i, _e33, _e28);
    let _e42 = (32u + _e27);
    let _e48 = (_e15 < 256u);
    if _e48 {
        out[select(0u, _e15, _e48)] = (((bitcast<i64>(u64(bitcast<u32>(min(v, -(v))))) << _e42) >> _e42) << 31u);
    }
    let _e57 = (_e15 < 256u);
    if _e57 {
        h[select(0u, _e15, _e57)] = f16((f32(v) * 0.33333334f));
    }
}
