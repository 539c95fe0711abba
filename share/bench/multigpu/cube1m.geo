// unit cube, unstructured tetrahedra in Gmsh's own (file) order
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.CharacteristicLengthMin = 0.0167;
Mesh.CharacteristicLengthMax = 0.0167;
Mesh.Algorithm3D = 1;
Physical Volume(1) = {1};
Physical Surface(1) = {1, 2, 3, 4, 5, 6};
