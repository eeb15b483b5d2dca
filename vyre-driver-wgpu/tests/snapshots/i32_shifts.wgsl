@group(0) @binding(0) 
var<storage> a: array<i32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<i32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e25 = (_e15 < 64u);
    let _e30 = a[select(0u, _e15, _e25)];
    let x = select(0i, _e30, _e25);
    let _e33 = (_e15 < 64u);
    let _e38 = b[select(0u, _e15, _e33)];
    let y = select(0u, _e38, _e33);
    let _e44 = ((_e15 * 2u) + 0u);
    let _e48 = (_e44 < 128u);
    if _e48 {
        out[select(0u, _e44, _e48)] = (x << (y & 31u));
    }
    let _e56 = ((_e15 * 2u) + 1u);
    let _e60 = (_e56 < 128u);
    if _e60 {
        out[select(0u, _e56, _e60)] = (x >> (y & 31u));
    }
}
