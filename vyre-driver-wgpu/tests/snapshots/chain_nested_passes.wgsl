@group(0) @binding(0) 
var<storage> a: array<u32>;
@group(0) @binding(1) 
var<storage> b: array<u32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e10 = (_e6 < 1024u);
    let _e15 = a[select(0u, _e6, _e10)];
    let cse1_ = select(0u, _e15, _e10);
    let _e18 = (_e6 < 1024u);
    let _e23 = b[select(0u, _e6, _e18)];
    let cse2_ = select(0u, _e23, _e18);
    let cse0_ = ((cse1_ + cse2_) * 3u);
    let _e43 = (_e6 < 1024u);
    if _e43 {
        out[select(0u, _e6, _e43)] = max((((((((cse0_ ^ (cse0_ >> 5u)) + cse2_) * 2654435761u) ^ cse1_) | 1u) - 7u) << 3u), cse2_);
    }
}
