-- Let go of the database Save Database As… wrote (explorer.store.save_as).
DETACH copy_target
