diagnostic(off, derivative_uniformity);
enable f16;
enable wgpu_cooperative_matrix;

@group(0) @binding(0) 
var<storage> a: array<f16>;
@group(0) @binding(1) 
var<storage> b: array<f16>;
@group(0) @binding(2) 
var<storage, read_write> c: array<f32>;

@compute @workgroup_size(128, 1, 1) 
fn main(@builtin(workgroup_id) vyre_workgroup_id: vec3<u32>, @builtin(local_invocation_id) vyre_local_id: vec3<u32>, @builtin(num_workgroups) vyre_num_workgroups: vec3<u32>) {
    var acc: coop_mat16x16<f32,C>;
    var s: u32;
    var ta: coop_mat16x16<f16,A>;
    var tb: coop_mat16x16<f16,B>;

    acc = coop_mat16x16<f32,C>();
    s = 0u;
    loop {
        let _e10 = s;
        if !((_e10 < 4u)) {
            break;
        }
        ta = coop_mat16x16<f16,A>();
        tb = coop_mat16x16<f16,B>();
        let _e17 = s;
        let _e19 = (_e17 * 16u);
        let _e24 = select(0u, (1024u - _e19), (_e19 < 1024u));
        if ((_e24 >= 16u) && (64u <= ((_e24 - 16u) / 15u))) {
            ta = coopLoadT<coop_mat16x16<f16,A>>((&a[_e19]), 64u);
        } else {
            ta = coop_mat16x16<f16,A>();
        }
        let _e36 = s;
        let _e41 = ((_e36 * 512u) + (vyre_workgroup_id.x * 16u));
        let _e46 = select(0u, (2048u - _e41), (_e41 < 2048u));
        if ((_e46 >= 16u) && (32u <= ((_e46 - 16u) / 15u))) {
            tb = coopLoad<coop_mat16x16<f16,B>>((&b[_e41]), 32u);
        } else {
            tb = coop_mat16x16<f16,B>();
        }
        let _e58 = ta;
        let _e59 = tb;
        let _e60 = acc;
        acc = coopMultiplyAdd(_e58, _e59, _e60);
        continuing {
            let _e62 = s;
            s = (_e62 + 1u);
        }
    }
    let _e66 = (vyre_workgroup_id.x * 16u);
    let _e71 = select(0u, (512u - _e66), (_e66 < 512u));
    if (((_e71 >= 16u) && (32u <= ((_e71 - 16u) / 15u))) && (32u >= 16u)) {
        let _e83 = acc;
        coopStoreT(_e83, (&c[_e66]), 32u);
    }
}
