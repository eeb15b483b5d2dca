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
    let _e36 = -(v);
    let _e50 = (_e15 < 256u);
    if _e50 {
        out[select(0u, _e15, _e50)] = (((bitcast<i64>(u64(bitcast<u32>(select(_e36, v, ((v ^ bitcast<i32>(_e27)) < _e36))))) << 32u) >> 32u) << 31u);
    }
    let _e59 = (_e15 < 256u);
    if _e59 {
        h[select(0u, _e15, _e59)] = f16((f32(v) * 0.33333334f));
    }
}
