@group(0) @binding(0) 
var<storage> data: array<vec4<u32>>;
@group(0) @binding(1) 
var<storage, read_write> out: array<u32>;
@group(1) @binding(0) 
var<storage> vyre_params: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e15 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e24 = vyre_params[8u];
    let b = (_e15 << 2u);
    let _e37 = data[min((b >> 2u), ((_e24 - 1u) >> 2u))];
    let _e71 = (_e15 < 256u);
    if _e71 {
        out[select(0u, _e15, _e71)] = ((((((select(0u, _e37.x, ((b + 0u) < _e24)) * 3u) + select(0u, _e37.y, ((b + 1u) < _e24))) * 3u) + select(0u, _e37.z, ((b + 2u) < _e24))) * 3u) + select(0u, _e37.w, ((b + 3u) < _e24)));
    }
}
