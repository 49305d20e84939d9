"""3D rockfall: terrain, rocks, Moreau time-stepping with frictional contact, ensembles."""
