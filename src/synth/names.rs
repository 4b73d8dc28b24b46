//! The names a synthetic tree is made of: application functions and source files of a stencil
//! solver, and the libraries it calls (MPI, BLAS, libm, libc, OpenMP) with their internal callees.

/// Functions `main` calls (the first is always `solve`).
pub(super) const APP_TOP: [&str; 6] = [
    "read_input",
    "init_mesh",
    "setup_solver",
    "solve",
    "write_checkpoint",
    "finalize",
];
/// Functions deeper in the application, drawn at random (plus `kernel_NNNN` names).
pub(super) const APP_MID: [&str; 28] = [
    "assemble_matrix",
    "compute_residual",
    "apply_boundary_conditions",
    "exchange_halo",
    "compute_fluxes",
    "smooth",
    "restrict_residual",
    "prolongate_correction",
    "apply_preconditioner",
    "cg_iteration",
    "spmv",
    "dot_product",
    "axpy",
    "vector_norm",
    "interpolate_field",
    "advect",
    "diffuse",
    "compute_timestep",
    "integrate_forces",
    "build_neighbor_list",
    "pack_buffers",
    "unpack_buffers",
    "update_ghost_cells",
    "compute_gradients",
    "reduce_energy",
    "sort_particles",
    "update_positions",
    "solve_local_block",
];
/// Source files of the application functions not named in `app_function`.
pub(super) const APP_FILES: [&str; 5] = ["solver.c", "linalg.c", "comm.c", "mesh.c", "physics.c"];
pub(super) const SRC_DIR: &str = "/opt/synth/src/";
pub(super) const EXE: &str = "/opt/synth/bin/solver";

/// Where a function comes from: the application or a library family.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Family {
    App,
    Mpi,
    Blas,
    Libm,
    Libc,
    Omp,
}

/// A library: its family, module path, public functions, internal callees and their module.
pub(super) struct Library {
    pub family: Family,
    pub module: &'static str,
    pub public: &'static [&'static str],
    pub internal: &'static [&'static str],
    pub internal_module: &'static str,
}

/// The libraries the application calls.
pub(super) const LIBS: [Library; 4] = [
    Library {
        family: Family::Mpi,
        module: "/opt/openmpi/lib/libmpi.so.40",
        public: &[
            "MPI_Wait",
            "MPI_Waitall",
            "MPI_Allreduce",
            "MPI_Isend",
            "MPI_Irecv",
            "MPI_Barrier",
            "MPI_Bcast",
            "MPI_Reduce",
        ],
        internal: &[
            "opal_progress",
            "ucp_worker_progress",
            "uct_mm_iface_progress",
        ],
        internal_module: "/opt/openmpi/lib/libopen-pal.so.40",
    },
    Library {
        family: Family::Blas,
        module: "/opt/openblas/lib/libopenblas.so.0",
        public: &["dgemm_", "dgemv_", "daxpy_", "ddot_", "dnrm2_", "dscal_"],
        internal: &[
            "dgemm_kernel_HASWELL",
            "dgemm_itcopy_HASWELL",
            "daxpy_k_HASWELL",
        ],
        internal_module: "/opt/openblas/lib/libopenblas.so.0",
    },
    Library {
        family: Family::Libm,
        module: "/usr/lib/x86_64-linux-gnu/libm.so.6",
        public: &["exp", "log", "sqrt", "pow", "sin", "cos"],
        internal: &[
            "__ieee754_exp_fma",
            "__ieee754_log_fma",
            "__ieee754_pow_fma",
        ],
        internal_module: "/usr/lib/x86_64-linux-gnu/libm.so.6",
    },
    Library {
        family: Family::Libc,
        module: "/usr/lib/x86_64-linux-gnu/libc.so.6",
        public: &["memcpy", "memset", "malloc", "free", "write", "read"],
        internal: &["__memcpy_avx_unaligned_erms", "_int_malloc", "__libc_write"],
        internal_module: "/usr/lib/x86_64-linux-gnu/libc.so.6",
    },
];
/// OpenMP runtime: the worker threads' entry function lives here.
pub(super) const GOMP: &str = "/usr/lib/x86_64-linux-gnu/libgomp.so.1";
