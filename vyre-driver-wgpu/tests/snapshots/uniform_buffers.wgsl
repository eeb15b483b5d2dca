@group(0) @binding(0) 
var<uniform> scale: array<vec4<f32>, 2>;
@group(0) @binding(1) 
var<storage> input: array<f32>;
@group(0) @binding(2) 
var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    let _e6 = ((vyre_workgroup_id.x * 64u) + vyre_local_id.x);
    let _e9 = (_e6 < 64u);
    let _e14 = input[select(0u, _e6, _e9)];
    let _e24 = scale[(0u / 4u)][(0u % 4u)];
    let _e30 = (_e6 % select(6u, 1u, (6u == 0u)));
    let _e37 = scale[(_e30 / 4u)][(_e30 % 4u)];
    let _e39 = (_e6 < 64u);
    if _e39 {
        out[select(0u, _e6, _e39)] = fma(select(0f, _e14, _e9), _e24, _e37);
    }
}
