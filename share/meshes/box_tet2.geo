// Unit cube of second-order tetrahedra with straight edges (mid-edge nodes at the midpoints): gmsh -3 -order 2 box_tet2.geo
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Volume("domain") = {1};
Physical Surface("wall") = {1, 2, 3, 4, 5, 6};
Mesh.MeshSizeMin = 0.5;
Mesh.MeshSizeMax = 0.5;
Mesh.MshFileVersion = 2.2;
