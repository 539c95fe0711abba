// Spherical shell 0.4 < r < 1 of curved (second-order) tetrahedra: gmsh -3 -order 2 shell_tet2.geo
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1.0};
Sphere(2) = {0, 0, 0, 0.4};
BooleanDifference(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
Physical Volume("domain") = {3};
Physical Surface("wall") = {1, 2};
Mesh.MeshSizeMin = 0.45;
Mesh.MeshSizeMax = 0.45;
Mesh.HighOrderOptimize = 2; // untangle curved cells at the concave inner sphere
Mesh.MshFileVersion = 2.2;
