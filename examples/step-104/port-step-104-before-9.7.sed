# deal.II 9.8's step-104 against deal.II 9.4 to 9.6 (after port-step-104.sed): the names that
# deal.II 9.7 introduced, in their older form.
s|public EnableObserverPointer|public Subscriptor|
s|running_in_debug_mode()|gpumf::internal::running_in_debug_mode()|
s|get_mpi_communicator()|get_communicator()|g
# AffineConstraints::reinit(owned, relevant) is 9.7's; reinit(relevant) before
s|constraints_\([up]\)\.reinit(owned_set_\([up]\), relevant_set_\([up]\));|constraints_\1.reinit(relevant_set_\3);|
s|constraint\.reinit(dof_handler\.locally_owned_dofs(),|constraint.reinit(|
# deal.II 9.4's distributed BlockVector has no memory-space argument (it lives on the host)
s|LinearAlgebra::distributed::BlockVector<Number, MemorySpace::Host>|LinearAlgebra::distributed::BlockVector<Number>|
