/*
 * dnnpar.h - public API of libdnnpar.
 *
 * dnnpar plans and simulates parallel DNN training on arrays of (possibly
 * heterogeneous) accelerators.  This header is the only one the CLI uses.
 *
 * Conventions
 *   - Every function that can fail returns a dnp_status and fills a
 *     caller-owned dnp_error with one human-readable line naming what and
 *     where.  Output parameters are written only on success.
 *   - Objects are created and destroyed in pairs (dnp_X_new / dnp_X_free);
 *     freeing NULL is a no-op.
 *   - Quantities carry their unit in the name: _s (seconds), _bytes,
 *     _flop (floating-point operations), _flops (FLOP per second),
 *     _elems (tensor elements), _bps (bytes per second).
 *
 * Layout (docs/library.md, "Headers"): this header includes the whole API,
 * one header per concern under dnnpar/, each usable alone:
 *   dnnpar/core.h        version, status and errors, the allocator hook,
 *                        output files, name suggestions, text formatting
 *   dnnpar/model.h       the graph IR, the model zoo and the loaders
 *   dnnpar/cluster.h     clusters, device and node presets, the device model
 *   dnnpar/collective.h  collectives on a group of devices
 *   dnnpar/plan.h        the planner: options, plans, strategies, executed accounting
 *   dnnpar/config3d.h    Megatron-LM configurations and the 3D search
 *   dnnpar/report.h      validation, pictures, DOT and exports
 *   dnnpar/accpar.h      the AccPar paper's evaluation (Figs. 5-8) reproduced
 *   dnnpar/pase.h        PaSE's searches and reproduction
 *   dnnpar/arch.h        the SynergyFlow and MPT accelerator models
 * Ownership: every pointer the library hands the caller to free is freed
 * with dnp_free or with its type's dnp_X_free; each header says which.
 */
#ifndef DNNPAR_H
#define DNNPAR_H

#include "dnnpar/core.h"
#include "dnnpar/model.h"
#include "dnnpar/cluster.h"
#include "dnnpar/collective.h"
#include "dnnpar/plan.h"
#include "dnnpar/config3d.h"
#include "dnnpar/report.h"
#include "dnnpar/accpar.h"
#include "dnnpar/pase.h"
#include "dnnpar/arch.h"

#endif /* DNNPAR_H */
